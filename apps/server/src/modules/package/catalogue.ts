import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  PERMISSIONS,
  appGroupList,
  appGroupQuery,
  envelopeSchema,
  packageCreateBody,
  packageDetail,
  packageIdParams,
  packageItem,
  packageList,
  softwareListQuery,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { actorOf, caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { PackageService } from './service.ts';
import type { ChunkedUploads } from './uploads.ts';

const editAny = [PERMISSIONS.upgradeEdit, PERMISSIONS.applicationEdit, PERMISSIONS.aiLibraryEdit];
const viewAny = [PERMISSIONS.upgradeView, PERMISSIONS.applicationView, PERMISSIONS.aiLibraryView];

/**
 * The package catalogue (issue 15): `POST /package/create` turns a finished chunked upload into a package (SHA-256
 * checked, an APK read), `GET /package/list`, `GET /package/apps` (my applications), `GET /package/:id`,
 * `POST /package/:id/delete` (soft; refused while an unfinished task uses it). The rules are PackageService's.
 */
export const packageRoutes: FastifyPluginAsyncZod<{
  db: Db;
  storage: ObjectStorage;
  uploads: ChunkedUploads;
  events: Pick<LiveEvents, 'publish'>;
}> = async (app, { db, storage, uploads, events }) => {
  const packages = new PackageService(db, storage, uploads, events);

  app.post(
    '/package/create',
    {
      config: { permission: editAny },
      schema: {
        tags: ['package'],
        summary:
          'A finished chunked upload becomes a package (firmware: upgrade:edit, app: application:edit, ' +
          'model: aiLibrary:edit); the SHA-256 given must be that of the bytes; an APK tells its own name and version',
        body: packageCreateBody,
        response: { 200: envelopeSchema(packageItem) },
      },
    },
    async (req) => ok(await packages.create(caller(req), actorOf(req), req.body)),
  );

  app.get(
    '/package/list',
    {
      config: { permission: viewAny },
      schema: {
        tags: ['package'],
        summary: 'Packages of the kinds the caller may see, newest first, server-paged',
        querystring: softwareListQuery,
        response: { 200: envelopeSchema(packageList) },
      },
    },
    async (req) => ok(await packages.list(caller(req), req.query)),
  );

  app.get(
    '/package/apps',
    {
      config: { permission: PERMISSIONS.applicationView },
      schema: {
        tags: ['package'],
        summary: 'My applications: one row per package name with its newest version, the number of versions',
        querystring: appGroupQuery,
        response: { 200: envelopeSchema(appGroupList) },
      },
    },
    async (req) => ok(await packages.appGroups(caller(req), req.query)),
  );

  app.get(
    '/package/:id',
    {
      config: { permission: viewAny },
      schema: {
        tags: ['package'],
        summary: 'A package: its fields, meta, icon, a signed download link, the device models it fits',
        params: packageIdParams,
        response: { 200: envelopeSchema(packageDetail) },
      },
    },
    async (req) => ok(await packages.detail(caller(req), req.params.id)),
  );

  app.post(
    '/package/:id/delete',
    {
      config: { permission: editAny },
      schema: {
        tags: ['package'],
        summary: 'Delete a package (kept for history with deleted_at); refused while an unfinished task uses it',
        params: packageIdParams,
        response: { 200: envelopeSchema(packageItem) },
      },
    },
    async (req) => ok(await packages.remove(caller(req), actorOf(req), req.params.id)),
  );
};
