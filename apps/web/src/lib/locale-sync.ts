import type { Locale } from 'antd/es/locale';
import antdEn from 'antd/es/locale/en_US';
import antdZh from 'antd/es/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { getLanguage, i18n, isLanguage, type Language } from './i18n';

/*
 * antd's and dayjs's locales, loaded with the console's providers rather than on the first screen: the
 * sign-in page uses neither (issue 3's first-load budget). Importing this module keeps dayjs on the
 * current language from then on.
 */

const ANTD_LOCALES: Record<Language, Locale> = { zh: antdZh, en: antdEn };
const DAYJS_LOCALES: Record<Language, string> = { zh: 'zh-cn', en: 'en' };

export const antdLocale = (lng: Language): Locale => ANTD_LOCALES[lng];

const applyDayjs = (lng: string) => {
  if (isLanguage(lng)) dayjs.locale(DAYJS_LOCALES[lng]);
};

applyDayjs(getLanguage());
i18n.on('languageChanged', applyDayjs);
