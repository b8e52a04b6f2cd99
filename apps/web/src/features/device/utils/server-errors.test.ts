import { beforeAll, describe, expect, it } from 'vitest';
import { i18n } from '@/lib/i18n';
import { RequestError } from '@/lib/request';
import { explainError, splitErrors } from './server-errors';

// en is loaded on demand in the console; its strings must be in before they are asked for
beforeAll(() => i18n.loadLanguages('en'));

const refused = (code: number, msg: string, fields?: Array<{ field: string; message: string; key?: string }>) =>
  new RequestError(
    msg,
    code,
    code,
    fields ? { fields } : code === 404 ? { resource: msg.replace(/ does not exist$/, '') } : null,
  );

describe('the server answers to a bind, in the user language', () => {
  const zh = i18n.getFixedT('zh');
  const en = i18n.getFixedT('en');
  const bindFields = ['sn', 'bindKey', 'name', 'groupId'];

  it.each([
    [
      refused(400, 'bindKey: bind key is wrong', [
        { field: 'bindKey', message: 'bind key is wrong', key: 'device.bindKeyWrong' },
      ]),
      'bindKey',
      '序列号或绑定码不正确，请核对设备标签',
    ],
    [
      refused(400, 'sn: device is bound to another account', [
        { field: 'sn', message: 'device is bound to another account', key: 'device.boundElsewhere' },
      ]),
      'sn',
      '该设备已绑定到其他账号，请先由原账号解绑',
    ],
    [
      refused(400, 'sn: the device is already bound to this account', [
        { field: 'sn', message: 'the device is already bound to this account', key: 'device.alreadyBound' },
      ]),
      'sn',
      '该设备已在您的设备列表中',
    ],
    [refused(404, 'group does not exist'), 'groupId', '所选分组已不存在，请重新选择'],
    // the msg in zh (as the server says it to a zh console): the resource still names it
    [new RequestError('分组不存在', 404, 404, { resource: 'group' }), 'groupId', '所选分组已不存在，请重新选择'],
  ])('puts a known refusal on its field', (err, field, text) => {
    expect(splitErrors(explainError(err), bindFields, zh)).toEqual({
      fields: [{ name: field, errors: [text] }],
      general: [],
    });
  });

  it('says how long to wait after too many wrong keys', () => {
    const err = refused(429, 'too many wrong bind keys for this device, try again in 15 minutes');
    expect(splitErrors(explainError(err), bindFields, en)).toEqual({
      fields: [],
      general: ['Too many wrong bind keys: try again in 15 minutes'],
    });
  });

  it('shows what it does not know as the server said it', () => {
    expect(splitErrors(explainError(refused(500, 'server error')), bindFields, zh).general).toEqual(['server error']);
    expect(
      splitErrors(explainError(refused(400, 'x: odd', [{ field: 'body.x', message: 'odd' }])), bindFields, zh).general,
    ).toEqual(['odd']);
    // a key this section has no words of its own for: the shared catalogue's, in the console's language
    expect(
      splitErrors(
        explainError(refused(400, 'x', [{ field: 'from', message: 'must be before to', key: 'device.fromAfterTo' }])),
        bindFields,
        zh,
      ).general,
    ).toEqual(['必须早于结束时间']);
  });

  it('says the same of control characters on every text field, in the user language', () => {
    const err = refused(400, 'name: must not contain control characters; remark: must not contain control characters', [
      { field: 'name', message: 'must not contain control characters', key: 'rule.noControl' },
      { field: 'remark', message: 'must not contain control characters', key: 'rule.noControl' },
    ]);
    expect(splitErrors(explainError(err), ['name', 'remark'], zh).fields).toEqual([
      { name: 'name', errors: ['不能包含控制字符（如换行、制表符）'] },
      { name: 'remark', errors: ['不能包含控制字符（如换行、制表符）'] },
    ]);
    expect(splitErrors(explainError(err), ['name'], en).fields).toEqual([
      { name: 'name', errors: ['Must not contain control characters (such as line breaks or tabs)'] },
    ]);
  });

  it('knows a taken group name and a vanished parent', () => {
    const taken = refused(400, 'name: a group with this name already exists here', [
      { field: 'name', message: 'a group with this name already exists here', key: 'device.groupNameTaken' },
    ]);
    expect(splitErrors(explainError(taken), ['name', 'parentId'], en).fields).toEqual([
      { name: 'name', errors: ['A group of this name already exists at this level'] },
    ]);
    expect(
      splitErrors(explainError(refused(404, 'parent group does not exist')), ['name', 'parentId'], en).fields,
    ).toEqual([{ name: 'parentId', errors: ['The parent group no longer exists'] }]);
  });
});
