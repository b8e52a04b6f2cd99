import { UPLOAD_MAX_BYTES } from '@cpc/contracts';
import { describe, expect, it } from 'vitest';
import { checkUploadFile } from './upload-check';

describe('checkUploadFile', () => {
  it.each([
    [{ name: 'a.jpg', type: 'image/jpeg', size: 1024 }, null],
    [{ name: 'a.png', type: 'image/png', size: UPLOAD_MAX_BYTES }, null],
    [{ name: 'a.PNG', type: '', size: 10 }, null],
    [{ name: 'a.gif', type: 'image/gif', size: 10 }, 'auth.validation.uploadType'],
    [{ name: 'a.pdf', type: 'application/pdf', size: 10 }, 'auth.validation.uploadType'],
    [{ name: 'a.exe', type: '', size: 10 }, 'auth.validation.uploadType'],
    // a renamed file keeps its real MIME type, which wins over the name
    [{ name: 'a.jpg', type: 'image/webp', size: 10 }, 'auth.validation.uploadType'],
    [{ name: 'a.jpg', type: 'image/jpeg', size: UPLOAD_MAX_BYTES + 1 }, 'auth.validation.uploadSize'],
  ])('%j → %s', (file, expected) => {
    expect(checkUploadFile(file)).toBe(expected);
  });
});
