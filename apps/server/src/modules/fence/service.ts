import {
  FENCE_DWELL_MAX_S,
  FENCE_MAX_PER_TENANT,
  FENCE_MAX_VERTICES,
  FENCE_RADIUS_MAX_M,
  FENCE_RADIUS_MIN_M,
  GCJ02_TILE_HOSTS,
  type FenceMapSettings,
  type MapTileCrs,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { EventSink } from '../task/index.ts';
import { FenceEditor } from './changes.ts';
import { FenceEvaluator } from './evaluation.ts';
import { FenceReader } from './reading.ts';
import { FenceRepository, FenceStateRepository } from './repository/index.ts';
import type { MapConfig, WebhookQueue } from './types.ts';

export type { FenceCaller, MapConfig, WebhookQueue } from './types.ts';

/** Default `tileCrs` of a tile URL: GCJ-02 for the Chinese providers' hosts, WGS-84 otherwise. */
export function defaultTileCrs(url: string | undefined): MapTileCrs {
  if (!url) return 'wgs84';
  let host: string;
  try {
    host = new URL(url.replace(/\{[a-z]+\}/gi, 'x')).hostname.toLowerCase();
  } catch {
    return 'wgs84';
  }
  return GCJ02_TILE_HOSTS.some((h) => host === h || host.endsWith(`.${h}`)) ? 'gcj02' : 'wgs84';
}

/**
 * Geofencing (issue 16). Fences are the tenant's (data scope applies to the devices shown in and through them);
 * each location report of a device is evaluated against the fences that target it (directly or through its group
 * and the groups above it) and apply now (enabled, schedule active): a side change counts once the device stayed
 * on the new side for the fence's dwell time — the state row keeps the pending side and since when, a later
 * report or the periodic check (`confirmDue`) confirms it. A confirmed change is a `fence_events` row; when the
 * fence's rule asks for it, also a message to the tenant's readers, a live `fence` event and a signed webhook.
 *
 * The use cases live in reading.ts (`FenceReader`), changes.ts (`FenceEditor`) and evaluation.ts
 * (`FenceEvaluator`); their statements in repository/.
 */
export class FenceService {
  private reader: FenceReader;
  private editor: FenceEditor;
  private evaluator: FenceEvaluator;

  constructor(
    db: Db,
    events: EventSink | undefined,
    webhooks: WebhookQueue | undefined,
    private map: MapConfig = {},
  ) {
    const repo = new FenceRepository(db);
    const state = new FenceStateRepository(db);
    this.reader = new FenceReader(repo, state);
    this.evaluator = new FenceEvaluator(state, events, webhooks);
    this.editor = new FenceEditor(repo, this.reader, this.evaluator, events);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Map settings

  mapSettings(): FenceMapSettings {
    const url = this.map.MAP_TILE_URL || null;
    const subdomains = this.map.MAP_TILE_SUBDOMAINS
      ? this.map.MAP_TILE_SUBDOMAINS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : url?.includes('{s}')
        ? ['a', 'b', 'c']
        : [];
    return {
      tileUrl: url,
      tileCrs: this.map.MAP_TILE_CRS ?? defaultTileCrs(url ?? undefined),
      attribution: this.map.MAP_TILE_ATTRIBUTION ?? '',
      subdomains,
      limits: {
        maxVertices: FENCE_MAX_VERTICES,
        radiusMinM: FENCE_RADIUS_MIN_M,
        radiusMaxM: FENCE_RADIUS_MAX_M,
        dwellMaxS: FENCE_DWELL_MAX_S,
        maxFences: FENCE_MAX_PER_TENANT,
      },
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading (reading.ts)

  list(...a: Parameters<FenceReader['list']>) {
    return this.reader.list(...a);
  }

  detail(...a: Parameters<FenceReader['detail']>) {
    return this.reader.detail(...a);
  }

  devices(...a: Parameters<FenceReader['devices']>) {
    return this.reader.devices(...a);
  }

  eventList(...a: Parameters<FenceReader['eventList']>) {
    return this.reader.eventList(...a);
  }

  deviceFences(...a: Parameters<FenceReader['deviceFences']>) {
    return this.reader.deviceFences(...a);
  }

  track(...a: Parameters<FenceReader['track']>) {
    return this.reader.track(...a);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Changes (changes.ts)

  create(...a: Parameters<FenceEditor['create']>) {
    return this.editor.create(...a);
  }

  update(...a: Parameters<FenceEditor['update']>) {
    return this.editor.update(...a);
  }

  remove(...a: Parameters<FenceEditor['remove']>) {
    return this.editor.remove(...a);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Evaluation (evaluation.ts)

  onLocation(...a: Parameters<FenceEvaluator['onLocation']>) {
    return this.evaluator.onLocation(...a);
  }

  storePosition(...a: Parameters<FenceEvaluator['storePosition']>) {
    return this.evaluator.storePosition(...a);
  }

  evaluate(...a: Parameters<FenceEvaluator['evaluate']>) {
    return this.evaluator.evaluate(...a);
  }

  reevaluate(...a: Parameters<FenceEvaluator['reevaluate']>) {
    return this.evaluator.reevaluate(...a);
  }

  confirmDue() {
    return this.evaluator.confirmDue();
  }

  prunePositions() {
    return this.evaluator.prunePositions();
  }
}
