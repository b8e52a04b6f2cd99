import { describe, expect, it } from 'vitest';
import { checkAttachment, hasRichContent } from './attachment';
import { dueIn, objectKeyOf } from './due';
import { filterFromSearch, filterParams } from './filter';

describe('work-order filter', () => {
  it('reads what the server takes from the URL and drops the rest', () => {
    const f = filterFromSearch(
      new URLSearchParams(
        'state=waiting,bogus,waiting&type=billing&priority=loud&keyword=%20x%20&assignee=12&overdue=true&unread=no&pageNo=0&pageSize=20&from=2026-11-01T00:00:00.000Z&to=yesterday',
      ),
    );
    expect(f).toEqual({
      state: ['waiting'],
      type: 'billing',
      keyword: 'x',
      assignee: '12',
      overdue: true,
      pageSize: 20,
      from: '2026-11-01T00:00:00.000Z',
    });
    expect(filterFromSearch(new URLSearchParams('assignee=someone')).assignee).toBeUndefined();
  });

  it('writes only what is set, states comma-separated', () => {
    expect(filterParams({ state: ['submitted', 'processing'], unread: true, overdue: undefined, keyword: '' })).toEqual(
      {
        state: 'submitted,processing',
        unread: 'true',
      },
    );
  });
});

describe('work-order attachments and times', () => {
  it('checks the name and size before an upload', () => {
    expect(checkAttachment({ name: 'log.TXT', size: 10 })).toBeNull();
    expect(checkAttachment({ name: 'a.exe', size: 10 })).toBe('type');
    expect(checkAttachment({ name: 'a.pdf', size: 0 })).toBe('empty');
    expect(checkAttachment({ name: 'a.zip', size: 10 * 1024 * 1024 + 1 })).toBe('size');
  });

  it('tells empty rich text from text or an image', () => {
    expect(hasRichContent('<p></p>')).toBe(false);
    expect(hasRichContent('<p>&nbsp; </p>')).toBe(false);
    expect(hasRichContent('<p>x</p>')).toBe(true);
    expect(hasRichContent('<p><img data-object-key="k"></p>')).toBe(true);
  });

  it('says a target in the largest whole unit, late or not', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(dueIn('2026-11-26T10:30:00Z', now)).toEqual({ late: false, n: 30, unit: 'minutes' });
    expect(dueIn('2026-11-26T07:00:00Z', now)).toEqual({ late: true, n: 3, unit: 'hours' });
    expect(dueIn('2026-11-30T10:00:00Z', now)).toEqual({ late: false, n: 4, unit: 'days' });
  });

  it("finds an attachment's object key in its signed URL", () => {
    expect(objectKeyOf({ url: '/apiAdmin/objects/2026/11/ab%20c/x.png?exp=1&sig=2' })).toBe('2026/11/ab c/x.png');
    expect(objectKeyOf({ url: 'https://elsewhere/x.png' })).toBeNull();
  });
});
