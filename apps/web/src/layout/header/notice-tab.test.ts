import { describe, expect, it } from 'vitest';
import { noticeDetailPath, previewOf } from './notice-tab';

describe('the popover’s announcement preview', () => {
  it('is the text of the HTML, blanks folded', () => {
    expect(previewOf('<p>Printing pauses on <strong>Sunday 02:00</strong>.</p>\n<ul><li>one</li></ul>')).toBe(
      'Printing pauses on Sunday 02:00. one',
    );
  });

  it('never runs what the HTML carries, and keeps no script text', () => {
    const w = window as { __xss?: number };
    expect(previewOf('<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>ok')).toBe('ok');
    expect(w.__xss).toBeUndefined();
  });

  it('opens the detail page of the announcement', () => {
    expect(noticeDetailPath(42)).toBe('/notice/detail?id=42');
  });
});
