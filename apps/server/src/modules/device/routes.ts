import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import {
  deviceBindBody,
  deviceDetail,
  deviceEditBody,
  deviceIdParams,
  deviceListItem,
  deviceListQuery,
  deviceMapData,
  deviceMapQuery,
  deviceMoveBody,
  deviceUnbindBody,
  deviceUnbindResult,
  groupAddBody,
  groupDeleteResult,
  groupEditBody,
  groupTree,
  groupView,
  idBody,
  moveResult,
  telemetryQuery,
  telemetrySeries,
} from '@cpc/contracts/device';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { DeviceService } from './service.ts';
import type { GroupService } from './group-service.ts';

type App = Parameters<FastifyPluginAsyncZod>[0];

const view = { permission: PERMISSIONS.deviceView };
const edit = { permission: PERMISSIONS.deviceEdit };
const bind = { permission: PERMISSIONS.deviceBind };
const group = { permission: PERMISSIONS.deviceGroup };
const tags = ['device'];

/** The fleet: the list and the map. */
function fleetRoutes(app: App, devices: DeviceService): void {
  app.get(
    '/device/list',
    {
      config: view,
      schema: {
        tags,
        summary: 'The fleet: filtered, sorted, paged',
        querystring: deviceListQuery,
        response: { 200: pagedEnvelope(deviceListItem) },
      },
    },
    async (req) => ok(await devices.list(caller(req), req.query)),
  );
  app.get(
    '/device/map',
    {
      config: view,
      schema: {
        tags,
        summary: 'Every located device (compact) and the count per province',
        querystring: deviceMapQuery,
        response: { 200: envelopeSchema(deviceMapData) },
      },
    },
    async (req) => ok(await devices.map(caller(req), req.query)),
  );
}

/** Binding, unbinding, editing and moving devices. */
function bindingRoutes(app: App, devices: DeviceService): void {
  app.post(
    '/device/bind',
    {
      config: bind,
      schema: {
        tags,
        summary:
          'Bind a device with the key on its label; 5 wrong keys per account and serial number in 15 minutes → 429',
        body: deviceBindBody,
        response: { 200: envelopeSchema(deviceListItem) },
      },
    },
    async (req) => ok(await devices.bind(caller(req), req.body, req.ip)),
  );
  app.post(
    '/device/unbind',
    {
      config: bind,
      schema: {
        tags,
        summary:
          'Unbind: back to the unbound pool, open tasks canceled; answers the new bind key (shown once), the old one stops working',
        body: deviceUnbindBody,
        response: { 200: envelopeSchema(deviceUnbindResult) },
      },
    },
    async (req) => ok(await devices.unbind(caller(req), req.body.id, req.ip)),
  );
  app.post(
    '/device/edit',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Rename a device or change its remark',
        body: deviceEditBody,
        response: { 200: envelopeSchema(deviceListItem) },
      },
    },
    async (req) => ok(await devices.edit(caller(req), req.body, req.ip)),
  );
  app.post(
    '/device/move',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Move devices into a group (or out of every group with groupId null)',
        body: deviceMoveBody,
        response: { 200: envelopeSchema(moveResult) },
      },
    },
    async (req) => ok({ moved: await devices.move(caller(req), req.body.ids, req.body.groupId, req.ip) }),
  );
}

/** The group tree and its changes. */
function groupRoutes(app: App, groups: GroupService): void {
  app.get(
    '/device/group/tree',
    {
      config: view,
      schema: {
        tags,
        summary: 'The group tree with device counts (including subgroups)',
        response: { 200: envelopeSchema(groupTree) },
      },
    },
    async (req) => ok(await groups.tree(caller(req))),
  );
  app.post(
    '/device/group/add',
    {
      config: group,
      schema: { tags, summary: 'Add a group', body: groupAddBody, response: { 200: envelopeSchema(groupView) } },
    },
    async (req) => ok(await groups.add(caller(req), req.body, req.ip)),
  );
  app.post(
    '/device/group/edit',
    {
      config: group,
      schema: {
        tags,
        summary: 'Rename, move or reorder a group (no cycles)',
        body: groupEditBody,
        response: { 200: envelopeSchema(groupView) },
      },
    },
    async (req) => ok(await groups.edit(caller(req), req.body, req.ip)),
  );
  app.post(
    '/device/group/delete',
    {
      config: group,
      schema: {
        tags,
        summary: 'Delete a group and its subgroups; their devices become ungrouped',
        body: idBody,
        response: { 200: envelopeSchema(groupDeleteResult) },
      },
    },
    async (req) => ok(await groups.remove(caller(req), req.body.id, req.ip)),
  );
}

/** One device: its detail and telemetry. */
function deviceRoutesById(app: App, devices: DeviceService): void {
  app.get(
    '/device/:id',
    {
      config: view,
      schema: {
        tags,
        summary: 'One device: status, SIM, location, recent status changes',
        params: deviceIdParams,
        response: { 200: envelopeSchema(deviceDetail) },
      },
    },
    async (req) => ok(await devices.detail(caller(req), req.params.id)),
  );
  app.get(
    '/device/:id/telemetry',
    {
      config: view,
      schema: {
        tags,
        summary: 'Battery, signal and SIM used counter over time (at most 31 days)',
        params: deviceIdParams,
        querystring: telemetryQuery,
        response: { 200: envelopeSchema(telemetrySeries) },
      },
    },
    async (req) => ok(await devices.telemetry(caller(req), req.params.id, req.query)),
  );
}

/** A customer's devices and groups (DESIGN §4); everything through the caller's tenant scope. */
export const deviceRoutes: FastifyPluginAsyncZod<{ devices: DeviceService; groups: GroupService }> = async (
  app,
  { devices, groups },
) => {
  fleetRoutes(app, devices);
  bindingRoutes(app, devices);
  groupRoutes(app, groups);
  deviceRoutesById(app, devices);
};
