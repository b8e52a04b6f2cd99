import { Segmented } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, useLanguage, type Language } from '../lib/i18n';

/** zh / en switch; the choice is remembered (SPEC §4). Two languages fit side by side, no menu needed. */
export function LanguageSwitch() {
  const { t } = useTranslation();
  const { language, setLanguage } = useLanguage();
  return (
    <Segmented<Language>
      size="small"
      value={language}
      options={LANGUAGES.map((lng) => ({ value: lng, label: t(`language.short.${lng}`), title: t(`language.${lng}`) }))}
      onChange={(lng) => void setLanguage(lng)}
      aria-label={t('language.switch')}
      data-testid="language-toggle"
    />
  );
}
