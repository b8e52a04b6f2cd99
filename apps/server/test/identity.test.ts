import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvents, subAccountWith } from './device-helpers.ts';
import {
  ADMIN_PASSWORD,
  JPEG_1x1,
  PNG_1x1,
  createHarness,
  multipart,
  registerCustomer,
  uploadImage,
  type Harness,
} from './harness.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

// Valid check digits: GB 11643 and GB 32100.
const ID_NUMBER = '11010519491231002X';
const CREDIT_CODE = '91350100M000100Y43';

describe('uploads', () => {
  it('stores a png and a jpeg under date-folder/random-id/original-name and serves them by signed URL', async () => {
    const c = await registerCustomer(h);
    for (const [name, bytes, mime] of [
      ['身份证 正面.png', PNG_1x1, 'image/png'],
      ['back.jpg', JPEG_1x1, 'image/jpeg'],
    ] as const) {
      const t = await h.call({
        method: 'GET',
        url: '/apiAdmin/user/v1/user/getQnToken?bucket=permanentfile',
        token: c.token,
      });
      const res = await h.call({
        method: 'POST',
        url: '/apiAdmin/upload',
        ...multipart({ token: t.body_.data.token }, { name, bytes }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.body_.data.key).toMatch(/^\d{8}\/[0-9a-f]{16}\/.+/);
      expect(res.body_.data.key.endsWith(name.replace(' ', '_'))).toBe(true);
      expect(res.body_.data.mime).toBe(mime);
      const file = await h.call({ method: 'GET', url: res.body_.data.url });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe(mime);
      expect(file.rawPayload.equals(bytes)).toBe(true);
      // flip the signature's first character to a different one (a fixed 'A' would match 1 time in 64)
      const tampered = await h.call({
        method: 'GET',
        url: res.body_.data.url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`),
      });
      expect(tampered.statusCode).toBe(403);
    }
  });

  it('checks the bytes, not the name: a text file called .png is refused', async () => {
    const c = await registerCustomer(h);
    const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken', token: c.token });
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart(
        { token: t.body_.data.token },
        { name: 'evil.png', bytes: Buffer.from('<script>alert(1)</script>'), type: 'image/png' },
      ),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toBe('file: uploads must be jpg or png');
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const res2 = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: t.body_.data.token }, { name: 'a.jpg', bytes: gif }),
    });
    expect(res2.statusCode).toBe(400);
  });

  it('refuses a file over 10 MB', async () => {
    const c = await registerCustomer(h);
    const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken', token: c.token });
    const big = Buffer.concat([PNG_1x1, Buffer.alloc(10 * 1024 * 1024 + 10)]);
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: t.body_.data.token }, { name: 'big.png', bytes: big }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toBe('file: file must not exceed 10MB');
  });

  it('refuses an upload without a valid token', async () => {
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: 'forged.token' }, { name: 'a.png', bytes: PNG_1x1 }),
    });
    expect(res.statusCode).toBe(401);
    const bucket = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/getQnToken?bucket=other',
      token: (await registerCustomer(h)).token,
    });
    expect(bucket.statusCode).toBe(400);
    expect(bucket.body_.msg).toMatch(/^bucket:/);
  });
});

describe('identity authentication', () => {
  it('individual: 0 → 2 → 3 (reason) → 2 → 1 with the attest name', async () => {
    const c = await registerCustomer(h, 'individual');
    const front = await uploadImage(h, c.token, 'front.png');
    const back = await uploadImage(h, c.token, 'back.png');
    const state0 = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/authenticate', token: c.token });
    expect(state0.body_.data).toMatchObject({ status: 0, type: 'individual', submission: null });

    const submit = { type: 'individual', realName: '张三', idNumber: ID_NUMBER, idFrontKey: front, idBackKey: back };
    const s1 = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: submit,
    });
    expect(s1.statusCode).toBe(200);
    expect(s1.body_.data.status).toBe(2);
    const twice = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: submit,
    });
    expect(twice.statusCode).toBe(400);

    const list = await h.call({ method: 'GET', url: '/apiAdmin/system/identity/list?status=2', token: staff });
    const mine = list.body_.data.list.find((s: { username: string }) => s.username === c.username);
    expect(mine).toMatchObject({
      realName: '张三',
      idNumber: ID_NUMBER,
      status: 2,
      images: { idFront: expect.stringContaining('/apiAdmin/objects/'), idBack: expect.any(String) },
    });
    expect((await h.call({ method: 'GET', url: mine.images.idFront })).statusCode).toBe(200);

    const rej = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/identity/reject',
      token: staff,
      payload: { id: mine.id, reason: 'photo is blurred' },
    });
    expect(rej.body_.data).toMatchObject({ status: 3, reason: 'photo is blurred' });
    const st3 = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/authenticate', token: c.token });
    expect(st3.body_.data).toMatchObject({ status: 3, submission: { reason: 'photo is blurred' } });
    const msgs = await h.call({ method: 'GET', url: '/apiAdmin/message/getList', token: c.token });
    expect(msgs.body_.data.list[0]).toMatchObject({ kind: 'identity.reviewed', body: 'photo is blurred' });

    const again = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: submit,
    });
    expect(again.body_.data.status).toBe(2);
    const list2 = await h.call({
      method: 'GET',
      url: `/apiAdmin/system/identity/list?status=2&keyword=${c.username}`,
      token: staff,
    });
    expect(list2.body_.data.total).toBe(1);
    const app = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/identity/approve',
      token: staff,
      payload: { id: list2.body_.data.list[0].id },
    });
    expect(app.body_.data.status).toBe(1);
    const info = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token });
    expect(info.body_.data).toMatchObject({ status: 1, attest_name: '张三', is_authenticate: 1 });
    const reapprove = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/identity/approve',
      token: staff,
      payload: { id: list2.body_.data.list[0].id },
    });
    expect(reapprove.statusCode).toBe(400);
  });

  it('enterprise: company name, credit code, legal person, licence', async () => {
    const c = await registerCustomer(h, 'enterprise');
    const licence = await uploadImage(h, c.token, 'licence.jpg', JPEG_1x1);
    const wrongType = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: { type: 'individual', realName: '张三', idNumber: ID_NUMBER, idFrontKey: licence, idBackKey: licence },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.body_.data.fields[0].field).toBe('type');
    const badCode = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: {
        type: 'enterprise',
        companyName: '云打印有限公司',
        creditCode: '91350100M000100Y44',
        legalPerson: '李四',
        licenceKey: licence,
      },
    });
    expect(badCode.statusCode).toBe(400);
    expect(badCode.body_.data.fields[0].field).toBe('creditCode');
    const ok = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: c.token,
      payload: {
        type: 'enterprise',
        companyName: '云打印有限公司',
        creditCode: CREDIT_CODE,
        legalPerson: '李四',
        licenceKey: licence,
      },
    });
    expect(ok.body_.data).toMatchObject({
      status: 2,
      submission: { companyName: '云打印有限公司', images: { licence: expect.any(String) } },
    });
    const id = ok.body_.data.submission.id;
    await h.call({ method: 'POST', url: '/apiAdmin/system/identity/approve', token: staff, payload: { id } });
    const info = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token });
    expect(info.body_.data).toMatchObject({ status: 1, attest_name: '云打印有限公司' });
  });

  it('refuses an ID number with a wrong check digit and images of another tenant', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const bKey = await uploadImage(h, b.token);
    const aKey = await uploadImage(h, a.token);
    const badId = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: a.token,
      payload: {
        type: 'individual',
        realName: '张三',
        idNumber: '110105194912310021',
        idFrontKey: aKey,
        idBackKey: aKey,
      },
    });
    expect(badId.body_).toMatchObject({
      code: 400,
      data: { fields: [{ field: 'idNumber', message: 'ID number format must be correct' }] },
    });
    const stolen = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: a.token,
      payload: { type: 'individual', realName: '张三', idNumber: ID_NUMBER, idFrontKey: aKey, idBackKey: bKey },
    });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.body_.data.fields[0].field).toBe('idBackKey');
    const missing = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/authenticate',
      token: a.token,
      payload: { type: 'individual', realName: '张三', idNumber: ID_NUMBER, idFrontKey: aKey },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.body_.data.fields[0].field).toBe('idBackKey');
  });

  it('refuses NUL and other control characters in names and image keys, naming the field', async () => {
    const c = await registerCustomer(h);
    const key = await uploadImage(h, c.token);
    const individual = { type: 'individual', realName: '张三', idNumber: ID_NUMBER, idFrontKey: key, idBackKey: key };
    const enterprise = {
      type: 'enterprise',
      companyName: '云打印有限公司',
      creditCode: CREDIT_CODE,
      legalPerson: '李四',
      licenceKey: key,
    };
    const cases: Array<[Record<string, string>, string, string]> = [
      [individual, 'realName', '张\u0000三'],
      [individual, 'idFrontKey', `${key}\u0000`],
      [individual, 'idBackKey', `\u001b${key}`],
      [enterprise, 'companyName', '云打印\u0000有限公司'],
      [enterprise, 'legalPerson', '李\t四'],
      [enterprise, 'licenceKey', `${key}\u0000`],
    ];
    for (const [base, field, value] of cases) {
      const res = await h.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/user/authenticate',
        token: c.token,
        payload: { ...base, [field]: value },
      });
      expect(res.statusCode, field).toBe(400);
      expect(
        res.body_.data.fields.map((f: { field: string }) => f.field),
        field,
      ).toEqual([field]);
    }
    const state = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/authenticate', token: c.token });
    expect(state.body_.data.status).toBe(0);
  });

  it('keeps the review to staff: customers get 403, unknown ids 404', async () => {
    const c = await registerCustomer(h);
    for (const [method, url, payload] of [
      ['GET', '/apiAdmin/system/identity/list', undefined],
      ['POST', '/apiAdmin/system/identity/approve', { id: 1 }],
      ['POST', '/apiAdmin/system/identity/reject', { id: 1, reason: 'no reason' }],
    ] as const) {
      const r = await h.call({ method, url, token: c.token, payload });
      expect(r.statusCode).toBe(403);
      expect(r.body_.code).toBe(403);
    }
    const r = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/identity/approve',
      token: staff,
      payload: { id: 999999 },
    });
    expect(r.statusCode).toBe(404);
    const noReason = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/identity/reject',
      token: staff,
      payload: { id: 1 },
    });
    expect(noReason.body_.data.fields[0].field).toBe('reason');
  });
});

describe('live identity events', () => {
  it('tell staff consoles of a submission, a rejection and an approval; never the customers', async () => {
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const c = await registerCustomer(h, 'individual');
    const other = await registerCustomer(h, 'individual');
    const [staffEv, customerEv] = [await openEvents(h, base, staff), await openEvents(h, base, other.token)];
    const submitterEv = await openEvents(h, base, c.token);
    try {
      const front = await uploadImage(h, c.token, 'front.png');
      const back = await uploadImage(h, c.token, 'back.png');
      const submit = { type: 'individual', realName: '李四', idNumber: ID_NUMBER, idFrontKey: front, idBackKey: back };
      expect(
        (await h.call({ method: 'POST', url: '/apiAdmin/user/v1/user/authenticate', token: c.token, payload: submit }))
          .statusCode,
      ).toBe(200);
      const waiting = await staffEv.waitFor('the submission', (e) => e.type === 'identity' && e.data.status === 2);
      expect(waiting.data).toMatchObject({ tenantId: expect.any(Number), status: 2 });
      const id = (waiting.data as { id: number }).id;
      await h.call({
        method: 'POST',
        url: '/apiAdmin/system/identity/reject',
        token: staff,
        payload: { id, reason: 'blurred' },
      });
      await staffEv.waitFor('the rejection', (e) => e.type === 'identity' && e.data.id === id && e.data.status === 3);
      await h.call({ method: 'POST', url: '/apiAdmin/user/v1/user/authenticate', token: c.token, payload: submit });
      const again = await staffEv.waitFor(
        'the second submission',
        (e) => e.type === 'identity' && e.data.id !== id && e.data.status === 2,
      );
      const againId = again.type === 'identity' ? again.data.id : 0;
      await h.call({
        method: 'POST',
        url: '/apiAdmin/system/identity/approve',
        token: staff,
        payload: { id: againId },
      });
      await staffEv.waitFor(
        'the approval',
        (e) => e.type === 'identity' && e.data.id === againId && e.data.status === 1,
      );
      expect(customerEv.events.filter((e) => e.type === 'identity')).toEqual([]);
      // the decisions are messages to the submitter: their console counts its unread messages again, no one else's
      await submitterEv.waitFor('the message', (e) => e.type === 'message');
      expect(customerEv.events.filter((e) => e.type === 'message')).toEqual([]);
      expect(staffEv.events.filter((e) => e.type === 'message')).toEqual([]);
    } finally {
      staffEv.close();
      customerEv.close();
      submitterEv.close();
    }
  });

  it('reach a reviewer who may not see devices, and no device events reach them', async () => {
    const address = h.app.server.address();
    const base =
      typeof address === 'object' && address
        ? `http://127.0.0.1:${address.port}`
        : await h.app.listen({ port: 0, host: '127.0.0.1' });
    const platform = await h.db
      .selectFrom('tenants')
      .select('id')
      .where('kind', '=', 'platform')
      .executeTakeFirstOrThrow();
    const reviewer = await subAccountWith(h, platform.id, ['identity:review']);
    const ev = await openEvents(h, base, reviewer);
    try {
      const c = await registerCustomer(h, 'individual');
      const submit = {
        type: 'individual',
        realName: '王五',
        idNumber: ID_NUMBER,
        idFrontKey: await uploadImage(h, c.token, 'f.png'),
        idBackKey: await uploadImage(h, c.token, 'b.png'),
      };
      expect(
        (await h.call({ method: 'POST', url: '/apiAdmin/user/v1/user/authenticate', token: c.token, payload: submit }))
          .statusCode,
      ).toBe(200);
      await ev.waitFor('the submission', (e) => e.type === 'identity' && e.data.status === 2);
      expect(ev.events.filter((e) => e.type === 'device' || e.type === 'task')).toEqual([]);
    } finally {
      ev.close();
    }
  });
});
