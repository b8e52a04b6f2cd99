import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  avatarBody,
  changePasswordBody,
  checkPasswordBody,
  envelopeSchema,
  profileUpdateBody,
  profileView,
  sessionIdBody,
  sessionView,
  userInfo,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { clientOf } from '../../lib/sessions.ts';
import type { UserService } from './service.ts';

const empty = envelopeSchema(z.null());

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Who the user is, and the checks and change of their own password. */
function identityRoutes(app: App, users: UserService): void {
  app.get(
    '/user/v1/user/userInfo',
    {
      config: { access: 'signedIn' },
      schema: { tags: ['account'], summary: 'The current user', response: { 200: envelopeSchema(userInfo) } },
    },
    async (req) => ok(await users.userInfo(caller(req))),
  );

  app.post(
    '/user/v1/user/checkPassword',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Check the current user password (screen-lock unlock)',
        body: checkPasswordBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await users.checkPassword(caller(req), req.body.password, clientOf(req));
      return ok(null);
    },
  );

  app.post(
    '/user/v1/user/changePassword',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Change the password; every other session ends',
        body: changePasswordBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await users.changePassword(caller(req), req.body.oldPassword, req.body.password, clientOf(req));
      return ok(null);
    },
  );

  // The personal centre (SPEC §2): profile, avatar and the user's own sessions.
}

/** The personal centre: profile and avatar. */
function profileRoutes(app: App, users: UserService): void {
  app.get(
    '/user/v1/user/profile',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: "The current user's profile: nickname, e-mail, masked mobile, tenant, roles",
        response: { 200: envelopeSchema(profileView) },
      },
    },
    async (req) => ok(await users.profile(caller(req))),
  );

  app.post(
    '/user/v1/user/updateProfile',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Change the nickname and e-mail',
        body: profileUpdateBody,
        response: { 200: envelopeSchema(profileView) },
      },
    },
    async (req) => ok(await users.updateProfile(caller(req), req.body, clientOf(req))),
  );

  app.post(
    '/user/v1/user/updateAvatar',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Set the avatar to an image the user uploaded (jpg/png ≤ 10 MB)',
        body: avatarBody,
        response: { 200: envelopeSchema(profileView) },
      },
    },
    async (req) => ok(await users.setAvatar(caller(req), req.body.avatarKey, clientOf(req))),
  );
}

/** The user's own sessions: the list, and signing one out. */
function sessionRoutes(app: App, users: UserService): void {
  app.get(
    '/user/v1/user/sessions',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: "The user's active sessions (browsers signed in), the current one first",
        response: { 200: envelopeSchema(z.array(sessionView)) },
      },
    },
    async (req) => ok(await users.sessions(caller(req))),
  );

  app.post(
    '/user/v1/user/revokeSession',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Sign out one other session of the user',
        body: sessionIdBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await users.revokeSession(caller(req), req.body.id, clientOf(req));
      return ok(null);
    },
  );
}

/** The signed-in user's own account: who they are, the screen-lock check, password, profile, avatar, sessions. */
export const userRoutes: FastifyPluginAsyncZod<{ users: UserService }> = async (app, { users }) => {
  identityRoutes(app, users);
  profileRoutes(app, users);
  sessionRoutes(app, users);
};
