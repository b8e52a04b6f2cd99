import { describe, expect, it } from 'vitest';
import { hasContent } from './notice-drawer';

describe('hasContent', () => {
  it.each([
    ['', false],
    ['<p></p>', false],
    ['<p>&nbsp; </p><p><br></p>', false],
    ['<p>hi</p>', true],
    ['<p><img data-object-key="k" src="/x.png"></p>', true],
  ])('%j → %s', (html, want) => expect(hasContent(html)).toBe(want));
});
