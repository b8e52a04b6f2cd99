import { describe, expect, it } from 'vitest';
import { iccidsFromSearch, newRequestId } from './order';

describe('order utils', () => {
  it('reads the ICCIDs of the URL, dropping what is not one and repeats', () => {
    const s = new URLSearchParams(
      'iccids=89860012345678901234, 8986001234567890123x,89860012345678901234,898600123456789012',
    );
    expect(iccidsFromSearch(s)).toEqual(['89860012345678901234']);
    expect(iccidsFromSearch(new URLSearchParams(''))).toEqual([]);
  });

  it('makes a new request id each time', () => {
    const a = newRequestId();
    expect(a).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(newRequestId()).not.toBe(a);
  });
});
