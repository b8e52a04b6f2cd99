import { beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@cpc/contracts/device-constants';
import { i18n } from '@/lib/i18n';
import { importFailureOf, registerFieldErrors, translateMessage } from './messages';

const t = i18n.getFixedT('zh');
const en = i18n.getFixedT('en');
const refusal = (data: unknown, message = 'nothing imported') => Object.assign(new Error(message), { data });

describe('import and registration messages', () => {
  beforeAll(() => i18n.loadLanguages('en'));

  it.each([
    ['cannot be empty', '不能为空'],
    [MSG.sn, '序列号须为 4-32 位字母、数字、- 或 _，以字母或数字开头'],
    [MSG.imei, 'IMEI 须为 15 位数字且校验位正确'],
    ['unknown model code "XX-1"', '没有编码为“XX-1”的型号'],
    ['duplicate of row 3', '与第 3 行重复'],
    ['already registered', '已登记过'],
    ['expected 6 columns, found 4', '应有 6 列，实际 4 列'],
    ['the first line must be the header sn,model,bind_key,secret,iccid,imei (sn and model required)', '第一行须为表头 sn,model,bind_key,secret,iccid,imei（sn 和 model 必填）'],
    ['file: the file is empty', '文件是空的'],
    ['file must not exceed 2 MB', '文件不能超过 2 MB'],
  ])('says "%s" in Chinese', (message, zh) => {
    expect(translateMessage(message, t)).toBe(zh);
  });

  it('keeps a message it does not know as the server wrote it', () => {
    expect(translateMessage('something new happened', t)).toBe('something new happened');
    expect(translateMessage('duplicate of row 3', en)).toBe('Repeats row 3');
  });

  it('reads a refused import as its rows, or as one problem with the file', () => {
    const rows = [
      { row: 3, field: 'sn', message: MSG.sn },
      { row: 4, field: 'model', message: 'unknown model code "X"' },
    ];
    expect(importFailureOf(refusal({ fields: [], rows }), t)).toEqual({ kind: 'rows', rows });
    expect(importFailureOf(refusal({ fields: [{ field: 'file', message: 'no devices in the file' }] }, 'file: no devices in the file'), t)).toEqual({ kind: 'file', message: '文件里没有设备' });
    expect(importFailureOf(new Error('连接后端接口失败'), t)).toEqual({ kind: 'file', message: '连接后端接口失败' });
  });

  it('puts a refused registration beside the field it names', () => {
    expect(registerFieldErrors(refusal({ fields: [{ field: 'sn', message: 'already registered' }] }), t)).toEqual({ fields: [{ name: 'sn', errors: ['已登记过'] }], other: null });
    expect(registerFieldErrors(refusal({ fields: [{ field: 'bind_key', message: MSG.bindKey }] }), t).fields).toEqual([{ name: 'bindKey', errors: ['绑定码须为 6-32 位字母或数字'] }]);
    expect(registerFieldErrors(refusal(null, 'server error'), t)).toEqual({ fields: [], other: 'server error' });
  });
});
