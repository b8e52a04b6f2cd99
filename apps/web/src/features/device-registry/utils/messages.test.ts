import { beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@cpc/contracts/device-constants';
import { i18n } from '@/lib/i18n';
import { importFailureOf, registerFieldErrors, sayProblem } from './messages';

const t = i18n.getFixedT('zh');
const en = i18n.getFixedT('en');
const refusal = (data: unknown, message = 'nothing imported') => Object.assign(new Error(message), { data });

describe('import and registration messages', () => {
  beforeAll(() => i18n.loadLanguages('en'));

  it.each([
    [{ key: 'registry.empty' }, '不能为空'],
    [{ key: MSG.sn }, '序列号须为 4-32 位字母、数字、- 或 _，以字母或数字开头'],
    [{ key: MSG.imei }, 'IMEI 须为 15 位数字且校验位正确'],
    [{ key: 'registry.unknownModel', params: { code: 'XX-1' } }, '没有编码为“XX-1”的型号'],
    [{ key: 'registry.duplicate', params: { row: 3 } }, '与第 3 行重复'],
    [{ key: 'registry.taken' }, '已登记过'],
    [{ key: 'registry.columns', params: { expected: 6, found: 4 } }, '应有 6 列，实际 4 列'],
    [
      { key: 'registry.header', params: { header: 'sn,model,bind_key,secret,iccid,imei' } },
      '第一行须为表头 sn,model,bind_key,secret,iccid,imei（sn 和 model 必填）',
    ],
    [{ key: 'registry.fileEmpty' }, '文件是空的'],
    [{ key: 'upload.tooLargeMb', params: { n: 2 } }, '文件不能超过 2 MB'],
  ])('says %j in Chinese by its key', (said, zh) => {
    expect(sayProblem({ message: 'the en message', ...said }, t)).toBe(zh);
  });

  it('says a key it has no words of its own for from the catalogue, and one without a key as sent', () => {
    expect(sayProblem({ message: 'must not contain control characters', key: 'rule.noControl' }, t)).toBe(
      '不能包含控制字符',
    );
    expect(sayProblem({ message: 'something new happened' }, t)).toBe('something new happened');
    expect(sayProblem({ message: 'duplicate of row 3', key: 'registry.duplicate', params: { row: 3 } }, en)).toBe(
      'Repeats row 3',
    );
  });

  it('reads a refused import as its rows, or as one problem with the file', () => {
    const rows = [
      { row: 3, field: 'sn', message: 'must be 4-32 letters, digits, - or _', key: MSG.sn },
      {
        row: 4,
        field: 'model',
        message: 'unknown model code "X"',
        key: 'registry.unknownModel',
        params: { code: 'X' },
      },
    ];
    expect(importFailureOf(refusal({ fields: [], rows }), t)).toEqual({ kind: 'rows', rows });
    expect(
      importFailureOf(
        refusal(
          { fields: [{ field: 'file', message: 'no devices in the file', key: 'registry.noRows' }] },
          '文件：文件中没有设备',
        ),
        t,
      ),
    ).toEqual({ kind: 'file', message: '文件里没有设备' });
    expect(importFailureOf(new Error('连接后端接口失败'), t)).toEqual({ kind: 'file', message: '连接后端接口失败' });
  });

  it('puts a refused registration beside the field it names', () => {
    expect(
      registerFieldErrors(
        refusal({ fields: [{ field: 'sn', message: 'already registered', key: 'registry.taken' }] }),
        t,
      ),
    ).toEqual({ fields: [{ name: 'sn', errors: ['已登记过'] }], other: null });
    expect(
      registerFieldErrors(
        refusal({ fields: [{ field: 'bind_key', message: 'must be 6-32 letters or digits', key: MSG.bindKey }] }),
        t,
      ).fields,
    ).toEqual([{ name: 'bindKey', errors: ['绑定码须为 6-32 位字母或数字'] }]);
    expect(registerFieldErrors(refusal(null, 'server error'), t)).toEqual({ fields: [], other: 'server error' });
  });
});
