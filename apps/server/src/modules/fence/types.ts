import type { MapTileCrs } from '@cpc/contracts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { DataAccess } from '../../lib/data-scope.ts';

/** Who asks: the tenant's scope, the user, the client address and the user's data scope. */
export interface FenceCaller {
  tenantId: number;
  userId: number;
  ip: string;
  scope: TenantScope;
  access: DataAccess;
}

/** Hands webhook deliveries to the sender once their rows are committed. */
export interface WebhookQueue {
  enqueue(deliveryIds: string[]): void;
}

export interface MapConfig {
  MAP_TILE_URL?: string;
  MAP_TILE_CRS?: MapTileCrs;
  MAP_TILE_ATTRIBUTION?: string;
  MAP_TILE_SUBDOMAINS?: string;
}

export const iso = (d: Date | string) => new Date(d).toISOString();
export const isoOrNull = (d: Date | string | null | undefined) => (d == null ? null : iso(d));
