import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '@cpc/contracts';
import type { DataAccess, Reach, ScopeView } from '../lib/data-scope.ts';
import { SCOPE_RULES, narrowEvent } from './live-scope.ts';

/**
 * Every kind of live event × readers of scope `own` and `department`: an event about a device (or a row) inside
 * the reader's scope is heard, one outside is not, and an event about several devices is narrowed to the reader's.
 * The kinds come from the rules table itself: a new kind without a case here fails the first test.
 */
const IN = 11; // the reader's device (in its department, and bound by it)
const OUT = 22; // a device of the account outside the reader's scope
const ICCID_IN = '8986000000000000011';
const ICCID_OUT = '8986000000000000022';
const MY_DEPT = 5;
const OTHER_DEPT = 9;
const ME = 7;

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 1,
  userId: ME,
  departmentId: scope === 'department' ? MY_DEPT : null,
  departmentPath: scope === 'department' ? '1/5/' : null,
});
const viewOf = (scope: DataAccess['scope']): ScopeView => ({
  access: access(scope),
  devices: new Set([IN]),
  iccids: new Set([ICCID_IN]),
  departments: new Set(scope === 'department' ? [MY_DEPT] : []),
});

const device = (id: number): LiveEvent => ({
  type: 'device',
  data: {
    id,
    sn: `SN-${id}`,
    status: 'online',
    paper: 'ok',
    battery: null,
    signal: null,
    firmware: '1.0',
    lastSeenAt: null,
    connectedAt: null,
    lat: null,
    lng: null,
    province: '',
  },
});
const task = (deviceId: number): LiveEvent => ({
  type: 'task',
  data: { id: 'x', deviceId, batchId: null, type: 'reboot', state: 'sent', progress: 0, stage: '', error: '' },
});
/** The row a reader's scope reaches: filed in its department (department scope) or its own (own scope). */
const mine: Reach = { filed: { departmentId: MY_DEPT, ownerId: ME } };
const theirs: Reach = { filed: { departmentId: OTHER_DEPT, ownerId: 99 } };

type Case = {
  inScope?: [LiveEvent, Reach?];
  outOfScope?: [LiveEvent, Reach?];
  /** A list event naming both: what the reader hears of it. */
  narrowed?: [LiveEvent, LiveEvent['data']];
  /** Events of the account as a whole: every reader hears them. */
  account?: LiveEvent;
  /** Events about a thing its module answers for (`entity`). */
  entity?: LiveEvent;
};

const CASES: Record<LiveEvent['type'], Case> = {
  device: { inScope: [device(IN)], outOfScope: [device(OUT)] },
  task: { inScope: [task(IN)], outOfScope: [task(OUT)] },
  fence: {
    inScope: [{ type: 'fence', data: { id: 1, deviceId: IN, event: 'leave' } }],
    outOfScope: [{ type: 'fence', data: { id: 1, deviceId: OUT, event: 'enter' } }],
    account: { type: 'fence', data: { id: 1 } },
  },
  application: {
    inScope: [{ type: 'application', data: { deviceIds: [IN] } }],
    outOfScope: [{ type: 'application', data: { deviceIds: [OUT] } }],
    narrowed: [{ type: 'application', data: { deviceIds: [OUT, IN] } }, { deviceIds: [IN] }],
  },
  systemCustom: {
    inScope: [{ type: 'systemCustom', data: { profileId: 3, deviceIds: [IN] } }],
    outOfScope: [{ type: 'systemCustom', data: { profileId: 3, deviceIds: [OUT] } }],
    narrowed: [
      { type: 'systemCustom', data: { profileId: 3, deviceIds: [IN, OUT] } },
      { profileId: 3, deviceIds: [IN] },
    ],
    account: { type: 'systemCustom', data: { profileId: 3, deviceIds: [] } },
  },
  sim: {
    inScope: [{ type: 'sim', data: { iccids: [ICCID_IN] } }],
    outOfScope: [{ type: 'sim', data: { iccids: [ICCID_OUT] } }],
    narrowed: [{ type: 'sim', data: { iccids: [ICCID_OUT, ICCID_IN] } }, { iccids: [ICCID_IN] }],
  },
  fileAcquisition: {
    inScope: [{ type: 'fileAcquisition', data: { id: 4, state: 'ready' } }, { devices: [IN] }],
    outOfScope: [{ type: 'fileAcquisition', data: { id: 4, state: 'ready' } }, { devices: [OUT] }],
  },
  order: {
    inScope: [{ type: 'order', data: { id: 1, orderNo: 'A', tenantId: 1, state: 'paid' } }, mine],
    outOfScope: [{ type: 'order', data: { id: 1, orderNo: 'A', tenantId: 1, state: 'paid' } }, theirs],
  },
  workOrder: {
    inScope: [{ type: 'workOrder', data: { id: 1, tenantId: 1, state: 'submitted' } }, mine],
    outOfScope: [{ type: 'workOrder', data: { id: 1, tenantId: 1, state: 'submitted' } }, theirs],
  },
  push: { entity: { type: 'push', data: { id: 8, state: 'sent' } } },
  upgrade: { entity: { type: 'upgrade', data: { releaseId: 8, state: 'running' } } },
  aiLibrary: { account: { type: 'aiLibrary', data: { id: 1, state: 'done' } } },
  identity: { account: { type: 'identity', data: { id: 1, tenantId: 1, status: 2 } } },
  permissions: { account: { type: 'permissions', data: { userIds: [ME] } } },
  menu: { account: { type: 'menu', data: { version: 2 } } },
  message: { account: { type: 'message', data: { userId: ME } } },
  department: { account: { type: 'department', data: {} } },
  notice: { account: { type: 'notice', data: { id: 1 } } },
  package: { account: { type: 'package', data: { id: 1, kind: 'app' } } },
};

const none = () => false;

describe('the data scope of every kind of live event', () => {
  it('has a case for every kind the rules know', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(SCOPE_RULES).sort());
  });

  for (const scope of ['own', 'department'] as const) {
    describe(`a reader of scope ${scope}`, () => {
      for (const [type, c] of Object.entries(CASES)) {
        it(`${type}: in scope heard, out of scope not, lists narrowed`, () => {
          const view = viewOf(scope);
          if (c.inScope) expect(narrowEvent(c.inScope[0], c.inScope[1], view, none)).toEqual(c.inScope[0]);
          if (c.outOfScope) expect(narrowEvent(c.outOfScope[0], c.outOfScope[1], view, none)).toBeNull();
          // an event whose rule needs its reach and has none is heard by nobody narrower than the account
          if (c.inScope?.[1]) expect(narrowEvent(c.inScope[0], undefined, view, none)).toBeNull();
          if (c.narrowed) expect(narrowEvent(c.narrowed[0], undefined, view, none)?.data).toEqual(c.narrowed[1]);
          if (c.account) expect(narrowEvent(c.account, undefined, view, none)).toEqual(c.account);
          if (c.entity) {
            expect(narrowEvent(c.entity, undefined, view, none)).toBeNull();
            expect(narrowEvent(c.entity, undefined, view, (t) => t === type)).toEqual(c.entity);
          }
        });
      }
    });
  }

  it('a reader of the whole account (no view) hears everything as it is', () => {
    for (const c of Object.values(CASES))
      for (const e of [c.inScope?.[0], c.outOfScope?.[0], c.narrowed?.[0], c.account, c.entity])
        if (e) expect(narrowEvent(e, undefined, null, none)).toBe(e);
  });
});
