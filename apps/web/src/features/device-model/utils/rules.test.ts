import { describe, expect, it } from 'vitest';
import { MSG } from '@cpc/contracts/device-constants';
import { i18n } from '@/lib/i18n';
import { checkCapabilities, checkCode, checkName, errorText, formFieldErrors, sayServerProblem } from './rules';

const t = i18n.getFixedT('zh');

describe('device model rules', () => {
  it.each([
    ['', 'deviceModel.validation.codeRequired'],
    ['A', 'deviceModel.validation.code'],
    ['.CP', 'deviceModel.validation.code'],
    ['CP-58A', null],
    ['cp.80_v2', null],
  ])('code "%s" → %s', (code, key) => {
    expect(checkCode(code)).toBe(key);
  });

  it('needs a name of at most 50 characters', () => {
    expect(checkName('  ')).toBe('deviceModel.validation.nameRequired');
    expect(checkName('x'.repeat(51))).toBe('deviceModel.validation.nameMax');
    expect(checkName('58mm 云打印机')).toBeNull();
  });

  it('takes capabilities as distinct lower-case tags, at most 30', () => {
    expect(checkCapabilities([])).toBeNull();
    expect(checkCapabilities(['print', 'reboot'])).toBeNull();
    expect(checkCapabilities(['Print'])).toBe('deviceModel.validation.capability');
    expect(checkCapabilities(['print', 'print'])).toBe('deviceModel.validation.capabilityRepeat');
    expect(checkCapabilities(Array.from({ length: 31 }, (_, i) => `c${i}`))).toBe(
      'deviceModel.validation.capabilitiesMax',
    );
  });

  it("says the server's refusals in the user's language", () => {
    expect(
      sayServerProblem(
        {
          message: 'the model is used by 3 registered devices and cannot be deleted',
          key: 'deviceModel.inUse',
          params: { n: 3 },
        },
        t,
      ),
    ).toBe('有 3 台已登记设备使用这个型号，不能删除');
    expect(
      sayServerProblem({ message: 'a model with this code already exists', key: 'deviceModel.codeTaken' }, t),
    ).toBe('已有相同编码的型号');
    expect(sayServerProblem({ message: 'anything else' }, t)).toBe('anything else');
    // msg comes in the console's language; a model gone meanwhile in this page's words
    expect(errorText(Object.assign(new Error('设备型号不存在'), { data: { resource: 'device model' } }), t)).toBe(
      t('deviceModel.delete.gone'),
    );
    expect(errorText(new Error('有 3 台已登记设备使用这个型号，不能删除'), t)).toBe(
      '有 3 台已登记设备使用这个型号，不能删除',
    );
    const err = Object.assign(new Error('bad'), {
      data: {
        fields: [
          {
            field: 'capabilities.1',
            message: 'each must be 2-32 lower-case letters, digits, - or _',
            key: MSG.capability,
          },
          { field: 'code', message: 'a model with this code already exists', key: 'deviceModel.codeTaken' },
          { field: 'other', message: 'x' },
        ],
      },
    });
    expect(formFieldErrors(err, ['code', 'capabilities'] as const, t)).toEqual([
      { name: 'capabilities', errors: ['每项能力须为 2-32 位小写字母、数字、- 或 _，以字母开头'] },
      { name: 'code', errors: ['已有相同编码的型号'] },
    ]);
  });
});
