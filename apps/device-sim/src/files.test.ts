import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { collect, matches, tarGz } from './files.ts';

const source = {
  sn: 'SIM-00001',
  model: 'CPSIM-58',
  firmware: '1.2.0',
  bootedAt: Date.UTC(2026, 10, 26, 8),
  printed: [
    { id: 'job-1', lines: ['Coffee 12.00', 'Total 12.00'], copies: 1, attempt: 1, at: Date.UTC(2026, 10, 26, 9) },
  ],
};

describe('the simulator answering file requests', () => {
  it('matches * and ? within one path segment only', () => {
    expect(matches('/data/log/print/*.log', '/data/log/print/print.log')).toBe(true);
    expect(matches('/data/log/*.log', '/data/log/print/print.log')).toBe(false);
    expect(matches('/data/tombstones/tombstone_0?', '/data/tombstones/tombstone_00')).toBe(true);
    expect(matches('/data/log/print/print.lo', '/data/log/print/print.log')).toBe(false);
  });

  it('writes its print log from what it printed, and says "no such file" when nothing matches', () => {
    const one = collect(source, '/data/log/print/*.log', 1e6);
    expect(one.ok && one.name).toBe('print.log');
    expect(one.ok && one.bytes.toString()).toContain('job job-1 attempt 1 copies 1 lines 2');
    expect(one.ok && one.bytes.toString()).toContain('| Coffee 12.00');
    expect(collect(source, '/sdcard/Download/none*', 1e6)).toEqual({ ok: false, error: 'no such file' });
    expect(collect(source, '/data/log/system/*.log', 10)).toMatchObject({ ok: false, error: /too large/ });
  });

  it('puts several matches into one tar.gz whose headers carry checksums tar accepts', () => {
    const many = collect(source, '/data/log/*/*.log', 1e6);
    expect(many.ok && many.name).toBe('SIM-00001-files.tar.gz');
    expect(many.ok && many.count).toBe(2);
    const tar = gunzipSync(tarGz([{ path: '/a/b.txt', bytes: Buffer.from('hi\n') }]));
    expect(tar.length % 512).toBe(0);
    const header = tar.subarray(0, 512);
    expect(header.toString('latin1', 0, 7)).toBe('a/b.txt');
    const stored = parseInt(header.toString('latin1', 148, 154), 8);
    const sum = [...header].reduce((s, b, i) => s + (i >= 148 && i < 156 ? 32 : b), 0);
    expect(stored).toBe(sum);
    expect(tar.toString('latin1', 512, 515)).toBe('hi\n');
  });
});
