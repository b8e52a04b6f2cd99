import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await createHarness();
  token = (await registerCustomer(h)).token;
});
afterAll(() => h.close());

const reg = { type: 'individual', username: 'gooduser', mobile: '13800000000', smsCode: '123456', password: 'Passw0rd99', confirmPassword: 'Passw0rd99' };

// Each bad input answers 400 naming the field, and nothing is created.
const cases: Array<{ name: string; url: string; method?: 'POST' | 'GET'; auth?: boolean; payload?: unknown; raw?: string; field: RegExp }> = [
  { name: 'login: empty user name', url: '/apiAdmin/user/v1/login', payload: { username: '  ', password: 'secret12' }, field: /^username: user name cannot be empty/ },
  { name: 'login: short password', url: '/apiAdmin/user/v1/login', payload: { username: 'abcdef', password: '123' }, field: /^password: password cannot be less than 6 characters/ },
  { name: 'login: missing password', url: '/apiAdmin/user/v1/login', payload: { username: 'abcdef' }, field: /^password/ },
  { name: 'login: wrong type', url: '/apiAdmin/user/v1/login', payload: { username: 123456, password: 'secret12' }, field: /^username/ },
  { name: 'login: unknown field', url: '/apiAdmin/user/login', payload: { username: 'abcdef', password: 'secret12', admin: true }, field: /^admin: / },
  { name: 'register: mobile', url: '/apiAdmin/register', payload: { ...reg, mobile: '23800000000' }, field: /^mobile: must be 11 digits starting with 1/ },
  { name: 'register: weak password', url: '/apiAdmin/register', payload: { ...reg, password: 'password', confirmPassword: 'password' }, field: /^password: must be 8-16/ },
  { name: 'register: passwords differ', url: '/apiAdmin/register', payload: { ...reg, confirmPassword: 'Passw0rd98' }, field: /^confirmPassword: the two passwords do not match/ },
  { name: 'register: type', url: '/apiAdmin/register', payload: { ...reg, type: 'company' }, field: /^type/ },
  { name: 'register: sms code', url: '/apiAdmin/register', payload: { ...reg, smsCode: '12ab' }, field: /^smsCode/ },
  { name: 'register: user name', url: '/apiAdmin/register', payload: { ...reg, username: '1bad name' }, field: /^username/ },
  { name: 'sms: mobile', url: '/apiAdmin/sms/send', payload: { mobile: '1380000' }, field: /^mobile/ },
  { name: 'sms: purpose', url: '/apiAdmin/sms/send', payload: { mobile: '13800000000', purpose: 'reset' }, field: /^purpose/ },
  { name: 'authenticate: type', url: '/apiAdmin/user/v1/user/authenticate', auth: true, payload: { type: 'robot' }, field: /^type/ },
  { name: 'authenticate: realName', url: '/apiAdmin/user/v1/user/authenticate', auth: true, payload: { type: 'individual', realName: 'x', idNumber: '11010519491231002X', idFrontKey: 'a', idBackKey: 'b' }, field: /^realName/ },
  { name: 'checkPassword: empty', url: '/apiAdmin/user/v1/user/checkPassword', auth: true, payload: {}, field: /^password/ },
  { name: 'changePassword: weak', url: '/apiAdmin/user/v1/user/changePassword', auth: true, payload: { oldPassword: 'x', password: 'weak', confirmPassword: 'weak' }, field: /^password/ },
  { name: 'notice list: page size', url: '/apiAdmin/notice/getList?pageSize=1000', method: 'GET', auth: true, field: /^pageSize/ },
  { name: 'notice list: page number', url: '/apiAdmin/notice/getList?pageNo=abc', method: 'GET', auth: true, field: /^pageNo/ },
  { name: 'login: malformed JSON', url: '/apiAdmin/user/v1/login', raw: '{"username": "abc', field: /JSON|body/i },
];

describe('bad input answers 400 naming the field', () => {
  it.each(cases)('$name', async (c) => {
    const before = await h.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await h.call({
      method: c.method ?? 'POST',
      url: c.url,
      token: c.auth ? token : undefined,
      ...(c.raw !== undefined ? { payload: c.raw, headers: { 'content-type': 'application/json' } } : c.payload !== undefined ? { payload: c.payload as object } : {}),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.msg).toMatch(c.field);
    const after = await h.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('never answers 500 to odd bodies', async () => {
    for (const payload of ['null', '[]', '"x"', '{"__proto__": {"a": 1}}', '{"username": {"$ne": 1}, "password": "x"}']) {
      const res = await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(400);
      expect(res.body_.code).toBe(400);
    }
    const wrongType = await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload: 'username=abc', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.statusCode).toBeGreaterThanOrEqual(400);
    expect(wrongType.statusCode).toBeLessThan(500);
    expect(wrongType.body_.code).toBe(wrongType.statusCode);
  });
});
