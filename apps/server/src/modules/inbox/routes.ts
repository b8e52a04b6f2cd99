import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import {
  envelopeSchema,
  messageDeleteBody,
  messageDeleteResult,
  messageDetailQuery,
  messageItem,
  messageListQuery,
  messageReadAllBody,
  messageReadBody,
  messageReadResult,
  pagedEnvelope,
  unreadCountResult,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { actorOf, caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { requestLanguage } from '../../lib/i18n/localize.ts';
import { InboxService, type InboxCaller } from './service.ts';

export interface InboxRouteOptions {
  db: Db;
  /** The user's other consoles hear of every change (`message` event); absent in tests of the routes alone. */
  events?: Pick<LiveEvents, 'publish'>;
}

type App = Parameters<FastifyPluginAsyncZod>[0];

const owner = (req: FastifyRequest) => {
  const u = caller(req);
  return { tenantId: u.tenantId, userId: u.id };
};
const actor = (req: FastifyRequest): InboxCaller => ({ ...owner(req), actor: actorOf(req) });

/** Reading: the list, one message (marked read on opening), the unread count. */
function readRoutes(app: App, inbox: InboxService): void {
  app.get(
    '/message/getList',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "The user's messages, newest first: filtered by group, read state, time and keyword",
        querystring: messageListQuery,
        response: { 200: pagedEnvelope(messageItem) },
      },
    },
    async (req) => {
      const { pageNo, pageSize, ...filter } = req.query;
      return ok(await inbox.list(owner(req), filter, { pageNo, pageSize }, requestLanguage(req)));
    },
  );

  app.get(
    '/message/detail',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "One of the user's messages; reading it marks it read (404 for anyone else's)",
        querystring: messageDetailQuery,
        response: { 200: envelopeSchema(messageItem) },
      },
    },
    async (req) => {
      return ok(await inbox.detail(owner(req), req.query.id, requestLanguage(req)));
    },
  );

  // Read state belongs to the caller alone: every query is pinned to their tenant and their own user id.
  app.get(
    '/message/unreadCount',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "How many of the user's messages are unread (the bell's badge)",
        response: { 200: envelopeSchema(unreadCountResult) },
      },
    },
    async (req) => {
      return ok({ count: await inbox.unreadCount(owner(req)) });
    },
  );
}

/** Changing: marking read (some, or all) and deleting. */
function changeRoutes(app: App, inbox: InboxService): void {
  app.post(
    '/message/read',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Mark some of the user's messages read; ids of others' messages are ignored",
        body: messageReadBody,
        response: { 200: envelopeSchema(messageReadResult) },
      },
    },
    async (req) => {
      return ok({ updated: await inbox.read(owner(req), req.body.ids) });
    },
  );

  app.post(
    '/message/readAll',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Mark all of the user's messages read (or those of one group)",
        body: messageReadAllBody,
        response: { 200: envelopeSchema(messageReadResult) },
      },
    },
    async (req) => {
      return ok({ updated: await inbox.readAll(actor(req), req.body?.group) });
    },
  );

  app.post(
    '/message/delete',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Delete some of the user's messages; ids of others' messages are ignored (`deleted` counts)",
        body: messageDeleteBody,
        response: { 200: envelopeSchema(messageDeleteResult) },
      },
    },
    async (req) => {
      return ok({ deleted: await inbox.delete(actor(req), req.body.ids) });
    },
  );
}

/**
 * The message centre (issue 14): every user's inbox. The calls keep the `/message/*` paths the console used.
 * Every query is pinned to the caller's tenant (TenantScope) and their own user id: another user's message does
 * not exist for them (404 on detail, ignored by read and delete).
 */
export const inboxRoutes: FastifyPluginAsyncZod<InboxRouteOptions> = async (app, { db, events }) => {
  const inbox = new InboxService(db, events);
  readRoutes(app, inbox);
  changeRoutes(app, inbox);
};
