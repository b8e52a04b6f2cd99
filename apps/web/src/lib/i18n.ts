import i18n from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import type { Locale } from 'antd/es/locale';
import antdZh from 'antd/es/locale/zh_CN';
import antdEn from 'antd/es/locale/en_US';
import { DEFAULT_LANGUAGE, LANGUAGES, LANGUAGE_KEY, type Language } from '../config/settings';
import zh from '../locales/zh';
import en from '../locales/en';

export { LANGUAGES, type Language };

export interface Dictionary {
  [key: string]: string | Dictionary;
}

/** Shape of every `src/features/<name>/locales.ts`: keys namespaced under the feature's name. */
export interface FeatureLocales {
  zh: Dictionary;
  en: Dictionary;
}

// Dictionaries are data, not code: gathering every feature's here keeps one bundle per language, so a
// feature never has to register its strings before its first render.
const featureLocales = import.meta.glob<{ default: FeatureLocales }>(['../features/*/locales.ts', '../layout/*/locales.ts'], {
  eager: true,
});

const ANTD_LOCALES: Record<Language, Locale> = { zh: antdZh, en: antdEn };
const DAYJS_LOCALES: Record<Language, string> = { zh: 'zh-cn', en: 'en' };

const isDictionary = (v: unknown): v is Dictionary => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeInto(target: Dictionary, source: Dictionary): Dictionary {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    target[key] = isDictionary(current) && isDictionary(value) ? mergeInto({ ...current }, value) : value;
  }
  return target;
}

/** The common dictionaries with every feature's merged in. */
export function buildResources(): Record<Language, Dictionary> {
  const resources: Record<Language, Dictionary> = { zh: mergeInto({}, zh), en: mergeInto({}, en) };
  for (const mod of Object.values(featureLocales)) {
    for (const lng of LANGUAGES) mergeInto(resources[lng], mod.default[lng] ?? {});
  }
  return resources;
}

export const isLanguage = (v: unknown): v is Language => LANGUAGES.includes(v as Language);

function storedLanguage(): Language {
  try {
    const v = localStorage.getItem(LANGUAGE_KEY);
    return isLanguage(v) ? v : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

function applySideEffects(lng: Language): void {
  dayjs.locale(DAYJS_LOCALES[lng]);
  if (typeof document !== 'undefined') document.documentElement.lang = lng === 'zh' ? 'zh-CN' : 'en';
}

const resources = buildResources();
const initial = storedLanguage();

void i18n.use(initReactI18next).init({
  resources: Object.fromEntries(Object.entries(resources).map(([lng, dict]) => [lng, { translation: dict }])),
  lng: initial,
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  // resources are bundled, so `t` must work right after import (the request layer uses it outside React)
  initAsync: false,
  interpolation: { escapeValue: false },
});
applySideEffects(initial);

export function getLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}

/** Switches i18next, antd (through `useAntdLocale`) and dayjs, and remembers the choice. */
export async function setLanguage(lng: Language): Promise<void> {
  try {
    localStorage.setItem(LANGUAGE_KEY, lng);
  } catch {
    // private mode: the choice just lasts for this page
  }
  applySideEffects(lng);
  await i18n.changeLanguage(lng);
}

export const antdLocale = (lng: Language): Locale => ANTD_LOCALES[lng];

/** The current language and its antd locale; re-renders when the language changes. */
export function useLanguage(): { language: Language; antdLocale: Locale; setLanguage: typeof setLanguage } {
  const { i18n: instance } = useTranslation();
  const language = isLanguage(instance.language) ? instance.language : DEFAULT_LANGUAGE;
  return { language, antdLocale: ANTD_LOCALES[language], setLanguage };
}

/** Translation outside React (request layer, guard). */
export const t = i18n.t.bind(i18n);

export { i18n };
