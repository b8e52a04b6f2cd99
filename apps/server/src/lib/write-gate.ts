import { sql, type RawBuilder } from 'kysely';

/** What a gate answers for one row of the write that carried it. */
export interface GateAnswer {
  /** The call's place in its key's count for the window. */
  hits: number;
  /** Its nonce was new. */
  fresh: boolean;
  /** The key's row as it is now. */
  key: unknown;
  /** Every condition held: the write's row was made. */
  pass: boolean;
}

/**
 * Conditions a call's own write carries into its statement, so that they and the write share one statement and
 * one commit (the open API's rate count and nonce carried by a submit's job row). The statement puts its rows in
 * a CTE `b` with columns `i int` (the row's place) and `g jsonb` (`values`, or null for a row without a gate),
 * then `ctes`, which define `gate (i, hits, fresh, key, pass)`, and writes a row only where its gate passed.
 */
export interface WriteGate {
  values: Record<string, unknown>;
  ctes: RawBuilder<unknown>;
  /**
   * Throws the call's refusal; true when the row must be written again without the gate (what the gate
   * compared changed meanwhile, and the call passed its checks on it as it is now).
   */
  settle(answer: GateAnswer): boolean;
  /** The conditions alone, for a call that ends before its write: throws its refusal, which goes first. */
  countAlone(): Promise<void>;
}

/** The `gate` of a statement none of whose rows carries one: the same columns, no row. */
export const NO_GATE = sql`gate AS (SELECT NULL::int AS i, NULL::int AS hits, NULL::boolean AS fresh, NULL::jsonb AS key, NULL::boolean AS pass WHERE false)`;
