import { afterEach, describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { CODE_TEXTS } from '@cpc/contracts';
import { LANGUAGE_KEY } from '../config/settings';
import en from '../locales/en';
import zh from '../locales/zh';
import deviceLocales from '../features/device/locales';
import errorLocales from '../features/error/locales';
import homeLocales from '../features/dashboard/locales';
import { getLanguage, i18n, loadDictionaries, setLanguage, type Dictionary } from './i18n';
import { antdLocale } from './locale-sync';

const keys = (dict: Dictionary, prefix = ''): string[] =>
  Object.entries(dict)
    .flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)))
    .sort();

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

  it('merges every feature dictionary under its own name, in both languages', async () => {
    await loadDictionaries();
    await setLanguage('en');
    expect(i18n.t('device.list.title')).toBe(deviceLocales.en.device.list.title);
    expect(i18n.t('error.notFound.subTitle')).toBe(errorLocales.en.error.notFound.subTitle);
    expect(i18n.t('request.code.404')).toBe(en.request.code['404']);
    await setLanguage('zh');
    expect(i18n.t('error.notFound.subTitle')).toBe(errorLocales.zh.error.notFound.subTitle);
    expect(i18n.t('auth.login.submit')).not.toBe('auth.login.submit');
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
