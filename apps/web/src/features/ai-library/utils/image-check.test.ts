import { describe, expect, it } from 'vitest';
import { checkOcrImage } from './image-check';

describe('checkOcrImage', () => {
  it('takes jpg, png and webp up to 10 MB', () => {
    expect(checkOcrImage({ name: 'a.webp', type: 'image/webp', size: 1000 })).toBeNull();
    expect(checkOcrImage({ name: 'a.JPG', size: 10 * 1024 * 1024 })).toBeNull();
  });
  it('refuses other types and bigger files', () => {
    expect(checkOcrImage({ name: 'a.pdf', type: 'application/pdf', size: 10 })).toBe('type');
    expect(checkOcrImage({ name: 'a.png', type: 'image/png', size: 10 * 1024 * 1024 + 1 })).toBe('size');
  });
});
