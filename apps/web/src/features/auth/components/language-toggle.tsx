import { useTranslation } from 'react-i18next';
import { useLanguage, type Language } from '@/lib/i18n';
import './auth.css';

/** zh / EN switch for the public screens (drawn as antd's small Segmented); the choice is remembered. */
export function LanguageToggle() {
  const { t } = useTranslation();
  const { language, setLanguage } = useLanguage();
  const options: Array<{ value: Language; label: string; title?: string }> = [
    { value: 'zh', label: t('auth.language.zh') },
    { value: 'en', label: 'EN', title: t('auth.language.en') },
  ];
  return (
    <span className="auth-lang" role="group" aria-label={t('auth.language.label')}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          title={o.title}
          aria-pressed={language === o.value}
          onClick={() => void setLanguage(o.value)}
        >
          {o.label}
        </button>
      ))}
    </span>
  );
}
