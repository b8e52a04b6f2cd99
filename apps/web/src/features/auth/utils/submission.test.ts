import type { IdentityView } from '@cpc/contracts';
import { describe, expect, it } from 'vitest';
import { imageUrl, objectKeyFromUrl, prefillFromSubmission } from './submission';

const base: IdentityView = {
  id: 7,
  tenantId: 3,
  type: 'individual',
  status: 3,
  reason: 'blurred photo',
  realName: '张三',
  idNumber: '11010519491231002X',
  companyName: null,
  creditCode: null,
  legalPerson: null,
  images: {},
  username: 'shop_01',
  mobile: '13800138000',
  submittedAt: '2024-01-01T00:00:00Z',
  reviewedAt: '2024-01-02T00:00:00Z',
};

describe('objectKeyFromUrl', () => {
  it.each([
    ['/apiAdmin/objects/20240101/abc123/front.jpg?exp=1&sig=x', '20240101/abc123/front.jpg'],
    ['http://host:8080/apiAdmin/objects/20240101/abc/%E8%BA%AB%E4%BB%BD.png?exp=1', '20240101/abc/身份.png'],
    ['https://cdn.example/objects/k.png', 'k.png'],
    ['/apiAdmin/other/20240101/a.png', undefined],
    ['/apiAdmin/objects/', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (url, expected) => {
    expect(objectKeyFromUrl(url)).toBe(expected);
  });
});

describe('imageUrl', () => {
  it.each([
    [{ idFrontKey: 'a' }, 'a'],
    [{ idFront: 'b' }, 'b'],
    [{ front: 'c' }, 'c'],
    [{ back: 'd' }, undefined],
  ])('%j → %j', (images, expected) => {
    expect(imageUrl(images, 'idFrontKey')).toBe(expected);
  });
});

describe('prefillFromSubmission', () => {
  it('keeps the text and the images of a rejected individual submission', () => {
    const { values, previews } = prefillFromSubmission({
      ...base,
      images: {
        idFront: '/apiAdmin/objects/20240101/a/f.jpg?sig=1',
        idBack: '/apiAdmin/objects/20240101/a/b.jpg?sig=2',
      },
    });
    expect(values).toEqual({
      realName: '张三',
      idNumber: '11010519491231002X',
      idFrontKey: '20240101/a/f.jpg',
      idBackKey: '20240101/a/b.jpg',
    });
    expect(previews.idFrontKey).toBe('/apiAdmin/objects/20240101/a/f.jpg?sig=1');
  });

  it('fills an enterprise and leaves an image it cannot read for a new upload', () => {
    const { values, previews } = prefillFromSubmission({
      ...base,
      type: 'enterprise',
      realName: null,
      idNumber: null,
      companyName: '云打印科技有限公司',
      creditCode: '91350100M000100Y43',
      legalPerson: '李四',
      images: { licence: 'https://elsewhere/licence.png' },
    });
    expect(values).toEqual({
      companyName: '云打印科技有限公司',
      creditCode: '91350100M000100Y43',
      legalPerson: '李四',
    });
    expect(previews).toEqual({});
  });

  it('is empty without a submission', () => {
    expect(prefillFromSubmission(null)).toEqual({ values: {}, previews: {} });
  });
});
