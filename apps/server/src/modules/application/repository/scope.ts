import { sql, type RawBuilder } from 'kysely';

/** The devices condition of a caller narrower than its account (lib/data-scope.ts); absent: all of the tenant's. */
export type DevicesInScope = RawBuilder<boolean> | undefined;

/** The condition, or `true` for a caller that reaches all of the tenant's devices. */
export const orAll = (devices: DevicesInScope) => devices ?? sql<boolean>`true`;
