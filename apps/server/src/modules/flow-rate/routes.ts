import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  PERMISSIONS,
  SIM_EXPORT_MAX,
  envelopeSchema,
  pagedEnvelope,
  simExportQuery,
  simItem,
  simListQuery,
  simSummary,
  simUsage,
  simUsageQuery,
  type SimItem,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { requestLanguage } from '../../lib/i18n/localize.ts';
import { csvLine } from '../system-log/index.ts';
import { FlowRateService } from './service.ts';

const HEADERS = {
  en: [
    'ICCID',
    'MSISDN',
    'Carrier',
    'Device SN',
    'Device name',
    'Group',
    'State',
    'Plan (MB)',
    'Used (MB)',
    'Left (MB)',
    'Left (%)',
    'Used this month (MB)',
    'Expires',
  ],
  zh: [
    'ICCID',
    '卡号',
    '运营商',
    '设备 SN',
    '设备名称',
    '分组',
    '状态',
    '套餐 (MB)',
    '已用 (MB)',
    '剩余 (MB)',
    '剩余 (%)',
    '本月已用 (MB)',
    '到期时间',
  ],
};
const STATES = {
  en: { active: 'Active', low: 'Low', exhausted: 'Used up', expired: 'Expired', suspended: 'Suspended' },
  zh: { active: '正常', low: '流量不足', exhausted: '已用尽', expired: '已到期', suspended: '已停机' },
};
const CARRIERS = {
  en: { cmcc: 'China Mobile', cucc: 'China Unicom', ctcc: 'China Telecom' } as Record<string, string>,
  zh: { cmcc: '中国移动', cucc: '中国联通', ctcc: '中国电信' } as Record<string, string>,
};

type App = Parameters<FastifyPluginAsyncZod>[0];
const config = { permission: PERMISSIONS.flowRateView };

/** The export: the SIMs of a filter as CSV, streamed in batches in the list's order. */
function exportRoute(app: App, sims: FlowRateService): void {
  app.get(
    '/flowRate/sim/export',
    {
      config,
      schema: {
        tags: ['flow-rate'],
        summary: 'The SIMs of a filter as CSV (UTF-8 with BOM), streamed in the list order',
        querystring: simExportQuery,
      },
    },
    async (req, reply) => {
      const { lang, ...filter } = req.query;
      const language = lang ?? requestLanguage(req);
      const rows = sims.all(caller(req), filter, SIM_EXPORT_MAX);
      // the first batch is read before answering, so a failure still answers in the envelope
      const first = await rows.next();
      const line = (s: SimItem) =>
        csvLine([
          s.iccid,
          s.msisdn,
          CARRIERS[language][s.carrier] ?? s.carrier,
          s.deviceSn ?? '',
          s.deviceName ?? '',
          s.groupName ?? '',
          STATES[language][s.state],
          s.planMb,
          s.usedMb,
          s.leftMb,
          s.leftPercent ?? '',
          s.usedMonthMb,
          s.expiresAt ?? '',
        ]);
      async function* lines() {
        yield `\ufeff${csvLine(HEADERS[language])}`;
        let item = first;
        while (!item.done) {
          yield line(item.value);
          item = await rows.next();
        }
      }
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '');
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="sims-${stamp}.csv"`)
        .header('cache-control', 'no-store');
      return reply.send(Readable.from(lines()));
    },
  );
}

/** The traffic query (issue 13, `/flowRate/flowRateSearch`): the SIM list, one SIM's chart, the export, the totals. */
export const flowRateRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  const sims = new FlowRateService(db);

  app.get(
    '/flowRate/sim/list',
    {
      config,
      schema: {
        tags: ['flow-rate'],
        summary: "The account's SIMs (of devices in the caller's data scope), filtered, sorted, paged",
        querystring: simListQuery,
        response: { 200: pagedEnvelope(simItem) },
      },
    },
    async (req) => ok(await sims.list(caller(req), req.query)),
  );

  app.get(
    '/flowRate/sim/usage',
    {
      config,
      schema: {
        tags: ['flow-rate'],
        summary: "One SIM's bytes up and down per day (30 or 90 days) or per month (12 months), zero-filled",
        querystring: simUsageQuery,
        response: { 200: envelopeSchema(simUsage) },
      },
    },
    async (req) => ok(await sims.usage(caller(req), req.query.iccid, req.query.range)),
  );

  app.get(
    '/flowRate/sim/summary',
    {
      config,
      schema: {
        tags: ['flow-rate'],
        summary: "The account's SIMs by state, this month's use and its month-end projection, plans expiring soon",
        response: { 200: envelopeSchema(simSummary) },
      },
    },
    async (req) => ok(await sims.summary(caller(req))),
  );
  exportRoute(app, sims);
};
