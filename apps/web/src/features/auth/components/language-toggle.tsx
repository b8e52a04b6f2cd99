import { Segmented } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLanguage, type Language } from '@/lib/i18n';

/** zh / EN switch for the public screens; `setLanguage` also switches antd and dayjs and remembers it. */
export function LanguageToggle({ size = 'small' }: { size?: 'small' | 'middle' | 'large' }) {
  const { t } = useTranslation();
  const { language, setLanguage } = useLanguage();
  return (
    <Segmented<Language>
      size={size}
      aria-label={t('auth.language.label')}
      value={language}
      options={[
        { label: t('auth.language.zh'), value: 'zh' },
        { label: 'EN', value: 'en', title: t('auth.language.en') },
      ]}
      onChange={(lng) => void setLanguage(lng)}
    />
  );
}
