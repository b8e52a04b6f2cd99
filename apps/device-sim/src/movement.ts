import { createHash } from 'node:crypto';
import { between, rng, type Rng } from './random.ts';

/**
 * How a simulated device moves (issue 16): most stand where they were put and only their GPS fix jitters by a few
 * metres; some are driven on routes across their city (waypoints within ~5 km of the centre, 8–15 m/s); a few
 * wander off slowly (a random walk of ~1 m/s that drifts away from home, up to ~3 km). A position set from the
 * control (`move`) pins the device there (jitter only) until it is moved again.
 */
export type MovementKind = 'still' | 'route' | 'wander';

export interface MovementOptions {
  /** Share of devices driving routes (default 0.05). */
  routeShare?: number;
  /** Share of devices wandering off (default 0.02). */
  wanderShare?: number;
  /** GPS jitter, metres (default 3). */
  jitterM?: number;
}

const M_PER_DEG_LAT = 111_320;
const mPerDegLng = (lat: number) => M_PER_DEG_LAT * Math.cos((lat * Math.PI) / 180);

/** The movement's own random numbers (from the serial number), so the device's other sequences are unchanged. */
export const movementRng = (sn: string): Rng =>
  rng(createHash('sha256').update(`movement:${sn}`).digest().readUInt32BE(0));

export class Movement {
  readonly kind: MovementKind;
  /** Where the device really is (the fix adds jitter to it). */
  private lat: number;
  private lng: number;
  private waypoint: { lat: number; lng: number } | null = null;
  private speedMs: number;
  private heading: number;
  private jitterM: number;

  constructor(
    private city: { lat: number; lng: number },
    home: { lat: number; lng: number },
    private r: Rng,
    opts: MovementOptions = {},
  ) {
    const u = r();
    const routeShare = opts.routeShare ?? 0.05;
    const wanderShare = opts.wanderShare ?? 0.02;
    this.kind = u < routeShare ? 'route' : u < routeShare + wanderShare ? 'wander' : 'still';
    this.lat = home.lat;
    this.lng = home.lng;
    this.speedMs = this.kind === 'route' ? between(r, 8, 15) : this.kind === 'wander' ? between(r, 0.5, 1.5) : 0;
    this.heading = between(r, 0, 2 * Math.PI);
    this.jitterM = opts.jitterM ?? 3;
  }

  /** Moves the device for `seconds` of its life and answers its GPS fix (position plus jitter). */
  step(seconds: number): { lat: number; lng: number } {
    if (this.kind === 'route' && !this.pinned) this.drive(seconds);
    if (this.kind === 'wander' && !this.pinned) this.wander(seconds);
    return this.fix();
  }

  /** Puts the device at a place (the control's `move`): it stays there, jitter only. */
  moveTo(lat: number, lng: number): { lat: number; lng: number } {
    this.lat = lat;
    this.lng = lng;
    this.pinned = true;
    return { lat, lng };
  }

  private pinned = false;

  /** Where it really is, without jitter. */
  get position(): { lat: number; lng: number } {
    return { lat: this.lat, lng: this.lng };
  }

  private fix(): { lat: number; lng: number } {
    if (this.jitterM <= 0) return { lat: this.lat, lng: this.lng };
    const d = between(this.r, 0, this.jitterM);
    const a = between(this.r, 0, 2 * Math.PI);
    return {
      lat: this.lat + (d * Math.sin(a)) / M_PER_DEG_LAT,
      lng: this.lng + (d * Math.cos(a)) / mPerDegLng(this.lat),
    };
  }

  private go(metres: number, bearing: number): void {
    this.lat += (metres * Math.sin(bearing)) / M_PER_DEG_LAT;
    this.lng += (metres * Math.cos(bearing)) / mPerDegLng(this.lat);
  }

  private drive(seconds: number): void {
    let left = this.speedMs * seconds;
    while (left > 0) {
      this.waypoint ??= {
        lat: this.city.lat + between(this.r, -0.045, 0.045),
        lng: this.city.lng + between(this.r, -0.045, 0.045),
      };
      const dy = (this.waypoint.lat - this.lat) * M_PER_DEG_LAT;
      const dx = (this.waypoint.lng - this.lng) * mPerDegLng(this.lat);
      const dist = Math.hypot(dx, dy);
      if (dist <= left) {
        this.lat = this.waypoint.lat;
        this.lng = this.waypoint.lng;
        this.waypoint = null;
        left -= dist;
        if (dist < 1) break;
      } else {
        this.go(left, Math.atan2(dy, dx));
        left = 0;
      }
    }
  }

  private wander(seconds: number): void {
    this.heading += between(this.r, -0.4, 0.4);
    const dy = (this.lat - this.city.lat) * M_PER_DEG_LAT;
    const dx = (this.lng - this.city.lng) * mPerDegLng(this.lat);
    // beyond ~3 km it turns back towards the city
    if (Math.hypot(dx, dy) > 3000) this.heading = Math.atan2(-dy, -dx);
    this.go(this.speedMs * seconds, this.heading);
  }
}
