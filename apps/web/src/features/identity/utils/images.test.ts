import { describe, expect, it } from 'vitest';
import { imageLabelKey, orderedImages } from './images';

describe('image labels', () => {
  it.each([
    ['idFrontKey', 'idFront'],
    ['idFront', 'idFront'],
    ['idBackKey', 'idBack'],
    ['licenceKey', 'licence'],
    ['license', 'licence'],
    ['selfie', null],
  ])('%s → %s', (name, expected) => {
    expect(imageLabelKey(name)).toBe(expected);
  });

  it('orders front, back, licence, then the rest, and drops empty URLs', () => {
    const out = orderedImages({ zeta: '/z', idBackKey: '/b', idFrontKey: '/f', alpha: '/a', empty: '' });
    expect(out.map((i) => i.name)).toEqual(['idFrontKey', 'idBackKey', 'alpha', 'zeta']);
  });
});
