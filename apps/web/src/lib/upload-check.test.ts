import { describe, expect, it } from 'vitest';
import { UPLOAD_MAX_BYTES } from '@cpc/contracts/constants';
import { checkImageFile } from './upload-check';

describe('checkImageFile', () => {
  it.each([
    [{ name: 'a.png', type: 'image/png', size: 10 }, null],
    [{ name: 'a.jpg', type: 'image/jpeg', size: UPLOAD_MAX_BYTES }, null],
    [{ name: 'A.JPEG', type: '', size: 10 }, null],
    [{ name: 'a.gif', type: 'image/gif', size: 10 }, 'type'],
    [{ name: 'a.png', type: 'text/plain', size: 10 }, 'type'],
    [{ name: 'a.txt', type: '', size: 10 }, 'type'],
    [{ name: 'a.png', type: 'image/png', size: UPLOAD_MAX_BYTES + 1 }, 'size'],
  ] as const)('%o → %s', (file, want) => expect(checkImageFile(file)).toBe(want));
});
