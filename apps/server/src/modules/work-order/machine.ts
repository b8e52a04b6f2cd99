import { WORK_ORDER_REOPEN_DAYS, type WorkOrderState } from '@cpc/contracts';
import { keyed, type Keyed } from '@cpc/contracts/messages';
import { AppError } from '../../plugins/errors.ts';

/**
 * The work-order state machine (issue 14), in one table: for each action, who may do it and, from each state it is
 * allowed in, the state it leads to. Every other (action, state) pair is refused with 409 and a message that names
 * the state. The service applies it under a row lock (`SELECT … FOR UPDATE`), so two staff members (or a customer
 * and staff) acting at once see each other's result.
 *
 *   submitted ─take/assign/reply/ask─▶ processing ─ask─▶ waiting ─customer reply─▶ processing ─resolve─▶ resolved
 *   resolved ─close (customer) / after WORK_ORDER_REOPEN_DAYS (system)─▶ closed ─rate─▶ closed
 *   resolved ─reopen (customer, within WORK_ORDER_REOPEN_DAYS)─▶ processing;  submitted ─withdraw─▶ withdrawn
 */
export type WorkOrderAction =
  | 'edit'
  | 'withdraw'
  | 'customerReply'
  | 'reopen'
  | 'close'
  | 'rate'
  | 'take'
  | 'assign'
  | 'unassign'
  | 'reply'
  | 'ask'
  | 'note'
  | 'resolve'
  | 'autoClose';
export type Actor = 'customer' | 'staff' | 'system';

interface Rule {
  by: Actor;
  /** From each state the action is allowed in, the state it leads to. */
  from: Partial<Record<WorkOrderState, WorkOrderState>>;
  /** The message of a refusal in `state`. */
  refused: (state: WorkOrderState) => AppError;
}

const stateName = (s: WorkOrderState): Keyed => keyed(`workOrder.state.${s}`);
type StateKey =
  | 'workOrder.notWithdrawable'
  | 'workOrder.replyClosed'
  | 'workOrder.notResolved'
  | 'workOrder.notClosed'
  | 'workOrder.notOpen';
const conflict = (key: StateKey, state: WorkOrderState) =>
  new AppError(409, key, { state: stateName(state) }, { data: { state } });

const OPEN = ['submitted', 'processing', 'waiting'] as const;
const same = (states: readonly WorkOrderState[]) =>
  Object.fromEntries(states.map((s) => [s, s])) as Partial<Record<WorkOrderState, WorkOrderState>>;

export const MACHINE: Record<WorkOrderAction, Rule> = {
  // the customer's own
  edit: { by: 'customer', from: { submitted: 'submitted' }, refused: (s) => taken(s) },
  withdraw: {
    by: 'customer',
    from: { submitted: 'withdrawn' },
    refused: (s) => conflict('workOrder.notWithdrawable', s),
  },
  customerReply: {
    by: 'customer',
    from: { submitted: 'submitted', processing: 'processing', waiting: 'processing' },
    refused: (s) =>
      s === 'resolved' ? new AppError(409, 'workOrder.replyResolved') : conflict('workOrder.replyClosed', s),
  },
  reopen: { by: 'customer', from: { resolved: 'processing' }, refused: (s) => conflict('workOrder.notResolved', s) },
  close: { by: 'customer', from: { resolved: 'closed' }, refused: (s) => conflict('workOrder.notResolved', s) },
  rate: { by: 'customer', from: { closed: 'closed' }, refused: (s) => conflict('workOrder.notClosed', s) },
  // staff
  take: {
    by: 'staff',
    from: { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    refused: (s) => conflict('workOrder.notOpen', s),
  },
  assign: {
    by: 'staff',
    from: { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    refused: (s) => conflict('workOrder.notOpen', s),
  },
  unassign: { by: 'staff', from: same(OPEN), refused: (s) => conflict('workOrder.notOpen', s) },
  reply: {
    by: 'staff',
    from: { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    refused: (s) => conflict('workOrder.replyClosed', s),
  },
  ask: {
    by: 'staff',
    from: { submitted: 'waiting', processing: 'waiting', waiting: 'waiting' },
    refused: (s) => conflict('workOrder.replyClosed', s),
  },
  /** Internal notes: in any state, even on a closed order (staff keep records). */
  note: {
    by: 'staff',
    from: same(['submitted', 'processing', 'waiting', 'resolved', 'closed', 'withdrawn']),
    refused: (s) => conflict('workOrder.notOpen', s),
  },
  resolve: {
    by: 'staff',
    from: { submitted: 'resolved', processing: 'resolved', waiting: 'resolved' },
    refused: (s) => conflict('workOrder.notOpen', s),
  },
  autoClose: { by: 'system', from: { resolved: 'closed' }, refused: (s) => conflict('workOrder.notResolved', s) },
};

function taken(state: WorkOrderState): AppError {
  return state === 'closed' || state === 'withdrawn'
    ? conflict('workOrder.replyClosed', state)
    : new AppError(409, 'workOrder.taken', null, { data: { state } });
}

/** Whether `action` is allowed in `state` (the detail's `can`). */
export const allows = (action: WorkOrderAction, state: WorkOrderState): boolean => MACHINE[action].from[state] != null;

/** Until when a resolved order may be reopened. */
export const reopenUntil = (resolvedAt: Date): Date =>
  new Date(resolvedAt.getTime() + WORK_ORDER_REOPEN_DAYS * 86_400_000);

/**
 * The state `action` leads to from `state`, or the refusal (409). A reopen is also refused once
 * WORK_ORDER_REOPEN_DAYS have passed since the resolution, and so is one of an order that closed by itself then.
 */
export function transition(
  action: WorkOrderAction,
  row: { state: WorkOrderState; resolved_at: Date | null; closed_at?: Date | null },
  now = new Date(),
): WorkOrderState {
  const rule = MACHINE[action];
  const to = rule.from[row.state];
  if (action === 'reopen' && row.resolved_at && reopenUntil(row.resolved_at) <= now && row.state !== 'withdrawn')
    throw new AppError(409, 'workOrder.reopenExpired', { n: WORK_ORDER_REOPEN_DAYS });
  if (!to) throw rule.refused(row.state);
  return to;
}
