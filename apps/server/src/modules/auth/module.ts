import { defineModule } from '../../plugins/module.ts';
import { createCaptchaProvider } from '../../lib/captcha.ts';
import { createSmsProvider } from '../../lib/sms.ts';
import { AuthService, SocialLogin, authRoutes, socialCallbackRoute } from './index.ts';

/** Sign-in, registration, captcha and SMS codes, social login. */
export const authModule = defineModule({
  name: 'auth',
  root: async (app) => {
    await app.register(socialCallbackRoute);
  },
  api: async (api) => {
    const { db, config, tokens, origin } = api.core;
    const captcha = createCaptchaProvider(config.CAPTCHA_PROVIDER, db, config.CAPTCHA_TTL_S);
    const sms = createSmsProvider(config.SMS_PROVIDER, config.dataDir, api.log);
    const auth = new AuthService(db, config, tokens, captcha, sms);
    await api.register(authRoutes, {
      auth,
      captcha,
      refreshTtl: config.REFRESH_TOKEN_TTL,
      limits: {
        captcha: config.RATE_LIMIT_CAPTCHA,
        sms: config.RATE_LIMIT_SMS,
        register: config.RATE_LIMIT_REGISTER,
      },
      social: new SocialLogin(db, config, auth),
      origin,
    });
  },
});
