/** BCP 47 tag of a console language, for Intl formatting (24-hour clock in both). */
export const localeOf = (language: string): string => (language === 'zh' ? 'zh-CN' : 'en-GB');
