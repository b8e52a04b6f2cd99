import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  PERMISSIONS,
  SYSTEM_LOG_EXPORT_MAX,
  envelopeSchema,
  systemLogExportQuery,
  systemLogPage,
  systemLogQuery,
  type SystemLogEntry,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { requestLanguage } from '../../lib/i18n/localize.ts';
import { csvLine } from './csv.ts';
import type { SystemLogService } from './service.ts';

const HEADERS = {
  en: [
    'Time',
    'Tenant',
    'User',
    'IP address',
    'Device',
    'Action',
    'Object',
    'Object id',
    'Result',
    'Changes',
    'Details',
  ],
  zh: ['时间', '租户', '用户', 'IP 地址', '设备', '操作', '对象', '对象 ID', '结果', '变更', '详情'],
};

/** A change as one cell: `field: before → after; …`. */
const changesText = (e: SystemLogEntry) =>
  Object.entries(e.changes)
    .map(([k, c]) => `${k}: ${JSON.stringify(c.before ?? null)} → ${JSON.stringify(c.after ?? null)}`)
    .join('; ');

/** The system log: the list (cursor paging) and its CSV export, of the caller's tenant or, for staff, of all. */
export const systemLogRoutes: FastifyPluginAsyncZod<{ log: SystemLogService }> = async (app, { log }) => {
  app.get(
    '/system/log/list',
    {
      config: { permission: PERMISSIONS.logView },
      schema: {
        tags: ['system-log'],
        summary: 'System log entries, newest first, paged by cursor (a customer: its tenant; staff: every tenant)',
        querystring: systemLogQuery,
        response: { 200: envelopeSchema(systemLogPage) },
      },
    },
    async (req) => ok(await log.list(caller(req), req.query)),
  );

  app.get(
    '/system/log/export',
    {
      config: { permission: PERMISSIONS.logView },
      schema: {
        tags: ['system-log'],
        summary: 'The entries of a filter as CSV (UTF-8 with BOM), streamed, newest first, at most 1,000,000',
        querystring: systemLogExportQuery,
      },
    },
    async (req, reply) => {
      const user = caller(req);
      const { lang, ...filter } = req.query;
      const language = lang ?? requestLanguage(req);
      const entries = log.all(user, filter, SYSTEM_LOG_EXPORT_MAX);
      // the first batch is read before answering, so a bad filter still answers 400 in the envelope
      const first = await entries.next();
      async function* lines() {
        yield `\ufeff${csvLine(HEADERS[language])}`;
        let item = first;
        while (!item.done) {
          const e = item.value;
          yield csvLine([
            e.at,
            e.tenantName,
            e.userName,
            e.ip,
            e.device,
            e.action,
            e.resource,
            e.resourceId,
            e.result,
            changesText(e),
            Object.keys(e.details).length ? e.details : '',
          ]);
          item = await entries.next();
        }
      }
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '');
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="system-log-${stamp}.csv"`)
        .header('cache-control', 'no-store');
      return reply.send(Readable.from(lines()));
    },
  );
};
