import { describe, expect, it } from 'vitest';
import { changedFields } from './audit.ts';

describe('changedFields', () => {
  it('lists only the fields whose value changed, before and after', () => {
    expect(changedFields({ name: 'a', remark: 'x', groupId: 1 }, { name: 'b', remark: 'x', groupId: null })).toEqual({
      name: { before: 'a', after: 'b' },
      groupId: { before: 1, after: null },
    });
  });

  it('masks secret fields but still says they changed', () => {
    expect(changedFields({ password: 'old', appSecret: 's1' }, { password: 'new', appSecret: 's1' })).toEqual({
      password: { before: '***', after: '***' },
    });
  });

  it('describes a deletion by the fields of the row before', () => {
    expect(changedFields({ name: 'Sales', sort: 2 }, {})).toEqual({
      name: { before: 'Sales', after: null },
      sort: { before: 2, after: null },
    });
  });
});
