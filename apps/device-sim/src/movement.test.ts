import { describe, expect, it } from 'vitest';
import { Movement, movementRng } from './movement.ts';
import { rng } from './random.ts';

const city = { lat: 31.2304, lng: 121.4737 };
const metres = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) =>
  Math.hypot((a.lat - b.lat) * 111_320, (a.lng - b.lng) * 111_320 * Math.cos((a.lat * Math.PI) / 180));

describe('movement', () => {
  it('most devices stand still: fixes within the jitter of home', () => {
    const kinds = Array.from({ length: 1000 }, (_, i) => new Movement(city, city, movementRng(`S${i}`)).kind);
    const still = kinds.filter((k) => k === 'still').length;
    expect(still).toBeGreaterThan(900);
    expect(kinds).toContain('route');
    expect(kinds).toContain('wander');
    const m = new Movement(city, city, rng(1), { routeShare: 0, wanderShare: 0, jitterM: 3 });
    for (let i = 0; i < 200; i++) expect(metres(m.step(30), city)).toBeLessThanOrEqual(3.01);
  });

  it('a driver crosses the city; a wanderer drifts off but not beyond ~3 km', () => {
    const car = new Movement(city, city, rng(2), { routeShare: 1, jitterM: 0 });
    expect(car.kind).toBe('route');
    let far = 0;
    for (let i = 0; i < 200; i++) far = Math.max(far, metres(car.step(30), city));
    expect(far).toBeGreaterThan(1000);
    expect(far).toBeLessThan(8000);
    const walker = new Movement(city, city, rng(3), { routeShare: 0, wanderShare: 1, jitterM: 0 });
    expect(walker.kind).toBe('wander');
    let max = 0;
    for (let i = 0; i < 2000; i++) max = Math.max(max, metres(walker.step(30), city));
    expect(max).toBeGreaterThan(300);
    expect(max).toBeLessThan(3200);
  });

  it('moveTo pins a device where it is put, even a driver', () => {
    const car = new Movement(city, city, rng(4), { routeShare: 1, jitterM: 2 });
    const place = { lat: 31.3, lng: 121.5 };
    car.moveTo(place.lat, place.lng);
    for (let i = 0; i < 50; i++) expect(metres(car.step(30), place)).toBeLessThanOrEqual(2.01);
  });
});
