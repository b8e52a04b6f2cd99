import { afterEach, describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { CODE_TEXTS } from '@cpc/contracts';
import { LANGUAGE_KEY } from '../config/settings';
import en from '../locales/en';
import zh from '../locales/zh';
import deviceLocales from '../features/device/locales';
import errorLocales from '../features/error/locales';
import homeLocales from '../features/home/locales';
import { antdLocale, buildResources, getLanguage, i18n, setLanguage, type Dictionary } from './i18n';

const keys = (dict: Dictionary, prefix = ''): string[] =>
  Object.entries(dict).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`))).sort();

afterEach(() => setLanguage('zh'));

describe('dictionaries', () => {
  it.each([
    ['common', { zh, en }],
    ['home', homeLocales],
    ['device', deviceLocales],
    ['error', errorLocales],
  ])('%s has the same keys in zh and en', (_name, dicts) => {
    expect(keys(dicts.zh)).toEqual(keys(dicts.en));
  });

  it('has a default text for every code of the error catalogue, in both languages', () => {
    for (const code of Object.keys(CODE_TEXTS)) {
      expect(zh.request.code).toHaveProperty(code);
      expect(en.request.code).toHaveProperty(code);
    }
  });

  it('merges every feature dictionary under its own name', () => {
    const resources = buildResources();
    expect((resources.en.device as Dictionary).list).toBeDefined();
    expect((resources.zh.error as Dictionary).notFound).toBeDefined();
    expect((resources.en.request as Dictionary).code).toBeDefined();
  });
});

describe('switching language', () => {
  it('defaults to zh', () => {
    expect(getLanguage()).toBe('zh');
    expect(i18n.t('app.title')).toBe('云打印');
  });

  it('switches i18next, dayjs and antd, and remembers the choice', async () => {
    await setLanguage('en');
    expect(i18n.t('app.title')).toBe('cloud printing');
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe('en');
    expect(dayjs.locale()).toBe('en');
    expect(antdLocale('en').locale).toBe('en');
    await setLanguage('zh');
    expect(dayjs.locale()).toBe('zh-cn');
    expect(antdLocale('zh').locale).toBe('zh-cn');
    expect(document.documentElement.lang).toBe('zh-CN');
  });
});
