import { describe, expect, it } from 'vitest';
import { FILE_PRESET_NAMES, FILE_REQUEST_STATES } from '@cpc/contracts/file-acquisition';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('file-acquisition locales', () => {
  itHasLocaleParity('fileAcquisition', locales);

  itHasEveryKeyTheCodeAsksFor(
    'fileAcquisition',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );

  it('names every state and predefined set in both languages', () => {
    for (const lng of ['zh', 'en'] as const) {
      for (const s of FILE_REQUEST_STATES) expect(locales[lng].fileAcquisition.state[s]).toBeTruthy();
      for (const p of FILE_PRESET_NAMES) expect(locales[lng].fileAcquisition.preset[p]).toBeTruthy();
    }
  });
});
