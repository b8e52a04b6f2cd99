import i18n, { type BackendModule } from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, LANGUAGE_KEY, type Language } from '../config/settings';
import zh from '../locales/zh';

export { LANGUAGES, type Language };

export interface Dictionary {
  [key: string]: string | Dictionary;
}

/** Shape of every `src/features/<name>/locales.ts`: keys namespaced under the feature's name. */
export interface FeatureLocales {
  zh: Dictionary;
  en: Dictionary;
}

type LocaleModule = { default: FeatureLocales };

/*
 * What the first screen needs travels with the first load: the default language's common strings and the
 * public screens' (auth). Every other feature's and the shell's strings load with the signed-in area
 * (`loadDictionaries`), and the other language when it is chosen. Locale modules are still picked up by
 * these globs, so a feature only has to add its `locales.ts`.
 */
const eagerLocales = import.meta.glob<LocaleModule>('../features/auth/locales.ts', { eager: true });
const lazyLocales = import.meta.glob<LocaleModule>([
  '../features/*/locales.ts',
  '../layout/*/locales.ts',
  '!../features/auth/locales.ts',
]);

const COMMON: Record<Language, () => Promise<Dictionary>> = {
  zh: async () => zh,
  en: async () => (await import('../locales/en')).default,
};

/** Feature dictionaries loaded so far, in both languages: a language loaded later gets them too. */
const features: FeatureLocales[] = Object.values(eagerLocales).map((m) => m.default);

const isDictionary = (v: unknown): v is Dictionary => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge that copies every level: i18next extends what it is given in place, the modules stay as written. */
function mergeInto(target: Dictionary, source: Dictionary): Dictionary {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    target[key] = isDictionary(value) ? mergeInto(isDictionary(current) ? { ...current } : {}, value) : value;
  }
  return target;
}

/** One language's common dictionary with every loaded feature's merged in. */
function dictionaryOf(lng: Language, common: Dictionary): Dictionary {
  const dict = mergeInto({}, common);
  for (const locales of features) mergeInto(dict, locales[lng] ?? {});
  return dict;
}

export const isLanguage = (v: unknown): v is Language => LANGUAGES.includes(v as Language);

/** i18next asks this for a language it has no strings of yet (then waits for it before switching). */
const lazyLanguages: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(lng, _namespace, callback) {
    if (!isLanguage(lng)) return callback(null, {});
    // the features are merged in when i18next has stored it (see 'loaded' below)
    COMMON[lng]().then(
      (common) => callback(null, mergeInto({}, common)),
      (error: Error) => callback(error, false),
    );
  },
};

function storedLanguage(): Language {
  try {
    const v = localStorage.getItem(LANGUAGE_KEY);
    return isLanguage(v) ? v : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

function applySideEffects(lng: string): void {
  if (!isLanguage(lng)) return;
  if (typeof document !== 'undefined') document.documentElement.lang = lng === 'zh' ? 'zh-CN' : 'en';
}

const initial = storedLanguage();

i18n.on('languageChanged', applySideEffects);
// A language that arrives after some features' dictionaries gets theirs in the same turn it is stored.
i18n.on('loaded', (loaded: Record<string, unknown>) => {
  for (const lng of Object.keys(loaded)) {
    if (isLanguage(lng))
      for (const locales of features)
        i18n.addResourceBundle(lng, 'translation', mergeInto({}, locales[lng] ?? {}), true, true);
  }
});

/** Resolves once the stored language's strings are in; render after it so an en user never sees zh. */
export const i18nReady: Promise<unknown> = i18n
  .use(lazyLanguages)
  .use(initReactI18next)
  .init({
    resources: { [DEFAULT_LANGUAGE]: { translation: dictionaryOf(DEFAULT_LANGUAGE, zh) } },
    partialBundledLanguages: true,
    lng: initial,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    // the default language is bundled, so `t` works right after import (the request layer uses it outside React)
    initAsync: false,
    interpolation: { escapeValue: false },
  });

let loadingFeatures: Promise<void> | null = null;

/**
 * Loads every feature's and the shell's dictionaries (once) into the languages loaded so far. The routes
 * await it before rendering anything beyond the public screens.
 */
export function loadDictionaries(): Promise<void> {
  loadingFeatures ??= Promise.all(Object.values(lazyLocales).map((load) => load())).then(
    (modules) => {
      for (const { default: locales } of modules) {
        features.push(locales);
        for (const lng of LANGUAGES) {
          if (i18n.hasResourceBundle(lng, 'translation'))
            i18n.addResourceBundle(lng, 'translation', mergeInto({}, locales[lng] ?? {}), true, true);
        }
      }
    },
    (error: unknown) => {
      // a failed download may succeed on the next navigation
      loadingFeatures = null;
      throw error;
    },
  );
  return loadingFeatures;
}

export function getLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}

/** Switches i18next (and with it antd and dayjs) once the language's strings are in, and remembers it. */
export async function setLanguage(lng: Language): Promise<void> {
  try {
    localStorage.setItem(LANGUAGE_KEY, lng);
  } catch {
    // private mode: the choice just lasts for this page
  }
  await i18n.changeLanguage(lng);
}

/** The current language; re-renders when it changes. antd's and dayjs's locales follow it in the console's providers. */
export function useLanguage(): { language: Language; setLanguage: typeof setLanguage } {
  const { i18n: instance } = useTranslation();
  const language = isLanguage(instance.language) ? instance.language : DEFAULT_LANGUAGE;
  return { language, setLanguage };
}

/** Translation outside React (request layer, guard). */
export const t = i18n.t.bind(i18n);

export { i18n };
