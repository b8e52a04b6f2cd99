import { Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '../../lib/i18n';
import { localeOf } from './intl-locale';
import { useNow } from '@/lib/use-now';

/** Date and time in the header, in the user's language (SPEC §9: refreshed every second). */
export function Clock() {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const now = new Date(useNow());
  const format = useMemo(
    () => new Intl.DateTimeFormat(localeOf(language), { dateStyle: 'medium', timeStyle: 'medium' }),
    [language],
  );
  return (
    <Typography.Text
      type="secondary"
      style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap', paddingInline: 8 }}
      aria-label={t('layout.header.clock.label')}
      data-testid="clock"
    >
      <time dateTime={now.toISOString()}>{format.format(now)}</time>
    </Typography.Text>
  );
}
