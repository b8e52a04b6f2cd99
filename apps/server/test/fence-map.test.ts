import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.ts';
import { customer, type Customer } from './device-helpers.ts';
import { defaultTileCrs } from '../src/modules/fence/index.ts';
import { httpTileOrigin } from '../src/plugins/security-headers.ts';

/** The fence map's base layer settings (issue 16): MAP_TILE_URL, its coordinate system and the CSP for its images. */
let h: Harness;
let A: Customer;

beforeAll(async () => {
  h = await createHarness({
    MAP_TILE_URL: 'http://webrd0{s}.is.autonavi.com/appmaptile?x={x}&y={y}&z={z}&style=8',
    MAP_TILE_SUBDOMAINS: '1,2,3,4',
    MAP_TILE_ATTRIBUTION: '© AutoNavi',
  });
  A = await customer(h);
});
afterAll(async () => {
  await h?.close();
});

describe('map settings', () => {
  it('takes the coordinate system from the provider’s host', () => {
    expect(defaultTileCrs('https://webrd01.is.autonavi.com/appmaptile?x={x}&y={y}&z={z}')).toBe('gcj02');
    expect(defaultTileCrs('https://rt{s}.map.gtimg.com/tile?z={z}&x={x}&y={y}')).toBe('gcj02');
    expect(defaultTileCrs('https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png')).toBe('wgs84');
    expect(defaultTileCrs('https://notamap.com.evil.example/{z}/{x}/{y}.png')).toBe('wgs84');
    expect(defaultTileCrs(undefined)).toBe('wgs84');
  });

  it('allows an http tile host in img-src; https needs nothing more', () => {
    expect(httpTileOrigin('http://tiles.lan:8080/{z}/{x}/{y}.png')).toEqual(['http://tiles.lan:8080']);
    expect(httpTileOrigin('http://{s}.tiles.lan/{z}/{x}/{y}.png')).toEqual(['http://*.tiles.lan']);
    expect(httpTileOrigin('http://webrd0{s}.is.autonavi.com/appmaptile')).toEqual(['http://*.is.autonavi.com']);
    expect(httpTileOrigin('http://tiles.{s}.lan/{z}/{x}/{y}.png')).toEqual(['http:']);
    expect(httpTileOrigin('https://tiles.example.com/{z}/{x}/{y}.png')).toEqual([]);
    expect(httpTileOrigin(undefined)).toEqual([]);
  });

  it('answers the configured tile layer to the console, and the CSP lets its images load', async () => {
    const res = await h.call({ method: 'GET', url: '/apiAdmin/fence/map', token: A.token });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({
      tileUrl: 'http://webrd0{s}.is.autonavi.com/appmaptile?x={x}&y={y}&z={z}&style=8',
      tileCrs: 'gcj02',
      attribution: '© AutoNavi',
      subdomains: ['1', '2', '3', '4'],
    });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/img-src [^;]*http:\/\/\*\.is\.autonavi\.com/);
  });
});
