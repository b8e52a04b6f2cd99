import { describe, expect, it } from 'vitest';
import { actionKey, changeRows, filterParams, showValue } from './filter';

describe('system log filter helpers', () => {
  it('sends only the fields that hold something, trimmed', () => {
    expect(filterParams({ user: ' ann ', action: '', result: 'fail', tenantId: 3, resource: undefined })).toEqual({
      user: 'ann',
      result: 'fail',
      tenantId: 3,
    });
  });

  it('turns an action into a translation key without dots or dashes', () => {
    expect(actionKey('device-model.edit')).toBe('device_model_edit');
    expect(actionKey('login')).toBe('login');
  });

  it('shows changes before → after as text', () => {
    expect(showValue(null)).toBe('–');
    expect(showValue('')).toBe('–');
    expect(showValue([1, 2])).toBe('[1,2]');
    expect(
      changeRows({ changes: { nickname: { before: 'Ann', after: 'Bea' }, roleIds: { before: [], after: [2] } } }),
    ).toEqual([
      { field: 'nickname', before: 'Ann', after: 'Bea' },
      { field: 'roleIds', before: '[]', after: '[2]' },
    ]);
  });
});
