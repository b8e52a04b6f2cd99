import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  BROKER_ACC,
  brokerAclBody,
  brokerAuthBody,
  brokerHookResult,
  mayPublish,
  mayReceive,
  maySubscribe,
  type BrokerAclBody,
  type BrokerHookResult,
} from '@cpc/contracts/device-protocol';
import type { Config } from '../../config.ts';
import { AppError } from '../errors.ts';
import type { DeviceLink } from './device-link.ts';

/** Where the hooks are: outside /apiAdmin (no console session, no payload encryption), for the broker only. */
export const BROKER_HOOK_PREFIX = '/mqtt/v1';
/**
 * mosquitto-go-auth sends no header of the operator's choosing but its User-Agent (auth_opt_http_user_agent):
 * `cpc-broker-hook/<secret>` stands in for the bearer token there (a header, so it stays out of the request log).
 */
const AGENT_SECRET = /^cpc-broker-hook\/(.+)$/;

const allow = (superuser?: boolean): BrokerHookResult => ({
  result: 'allow',
  ok: true,
  ...(superuser !== undefined ? { is_superuser: superuser } : {}),
});
const deny = (why: string): BrokerHookResult => ({ result: 'deny', ok: false, is_superuser: false, error: why });
const digest = (s: string) => createHash('sha256').update(s).digest();
/** Equal strings, in constant time whatever their lengths. */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** The server nodes' own broker user, from MQTT_URL: it may do anything on the device topics. */
function serverUser(config: Config): { username: string; password: string } | null {
  if (!config.MQTT_URL) return null;
  const u = new URL(config.MQTT_URL);
  return u.username ? { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } : null;
}

function aclAllows(b: BrokerAclBody): boolean {
  const sn = b.username;
  // devices publish nothing retained (docs/device-protocol.md), and a device is its user name and its client id
  if (b.clientid !== sn) return false;
  if (b.retain === true || b.retain === 'true' || b.retain === '1') return false;
  const acc = b.acc ?? (b.action === 'subscribe' ? BROKER_ACC.subscribe : BROKER_ACC.write);
  if (acc === BROKER_ACC.write) return mayPublish(sn, b.topic);
  if (acc === BROKER_ACC.subscribe) return maySubscribe(sn, b.topic);
  if (acc === BROKER_ACC.read) return mayReceive(sn, b.topic);
  return false;
}

/**
 * The external broker's authentication and authorization hooks (DESIGN §6: "the external broker's auth hook
 * calling the server"), for EMQX's HTTP authenticator and authorizer or mosquitto-go-auth's HTTP backend:
 * `POST /mqtt/v1/auth` checks a device's timed credential exactly as the embedded broker does (client id = user
 * name = sn, MQTT_AUTH_WINDOW_S), `POST /mqtt/v1/acl` confines it to `cp/v1/{sn}/…`. The server nodes' own user
 * (MQTT_URL's) is allowed everything. Both answer 200 with `result` allow or deny; only the broker, holding
 * MQTT_AUTH_HOOK_SECRET, may ask. Without that secret the hooks do not exist (404).
 */
export const brokerHookRoutes: FastifyPluginAsyncZod<{ config: Config; link: DeviceLink }> = async (
  app,
  { config, link },
) => {
  const secret = config.MQTT_AUTH_HOOK_SECRET;
  if (!secret) return;
  const server = serverUser(config);
  const tags = ['broker hook'];

  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ')
      ? header.slice(7)
      : (AGENT_SECRET.exec(req.headers['user-agent'] ?? '')?.[1] ?? '');
    if (!given || !same(given, secret)) throw new AppError(401, 'auth.brokerHook');
  });

  app.post(
    '/auth',
    {
      schema: {
        tags,
        summary: "The broker asks whether a client's credentials are good (EMQX HTTP authenticator, mosquitto-go-auth)",
        body: brokerAuthBody,
        response: { 200: brokerHookResult },
      },
    },
    async (req) => {
      const b = req.body;
      if (server && same(b.username, server.username))
        return same(b.password, server.password) ? allow(true) : deny('bad user name or password');
      return (await link.checkDevice(b.clientid, b.username, b.password))
        ? allow(false)
        : deny('bad user name or password');
    },
  );

  app.post(
    '/acl',
    {
      schema: {
        tags,
        summary:
          'The broker asks whether a client may publish, subscribe or receive on a topic (EMQX HTTP authorizer, mosquitto-go-auth)',
        body: brokerAclBody,
        response: { 200: brokerHookResult },
      },
    },
    async (req) => {
      const b = req.body;
      if (server && same(b.username, server.username)) return allow();
      return aclAllows(b) ? allow() : deny(`${b.username} may not use ${b.topic}`);
    },
  );
};
