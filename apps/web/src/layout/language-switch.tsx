import { TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, useLanguage } from '../lib/i18n';

/** zh / en switch; the choice is remembered (SPEC §4). */
export function LanguageSwitch() {
  const { t } = useTranslation();
  const { language, setLanguage } = useLanguage();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: LANGUAGES.map((lng) => ({ key: lng, label: t(`language.${lng}`) })),
        onClick: ({ key }) => void setLanguage(key as (typeof LANGUAGES)[number]),
      }}
    >
      <Button type="text" icon={<TranslationOutlined />} aria-label={t('language.switch')}>
        {t(`language.${language}`)}
      </Button>
    </Dropdown>
  );
}
