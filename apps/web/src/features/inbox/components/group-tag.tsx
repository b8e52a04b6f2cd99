import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { GROUP_COLOR, messageGroupOf } from '../utils/kinds';

/** What a message is about, as a coloured tag ("SIM", "Device"…); a kind of no known group says "System". */
export function GroupTag({ kind }: { kind: string }) {
  const { t } = useTranslation();
  const group = messageGroupOf(kind);
  return (
    <Tag color={group ? GROUP_COLOR[group] : undefined} style={{ marginInlineEnd: 0 }}>
      {group ? t(`inbox.group.${group}`) : t('inbox.group.other')}
    </Tag>
  );
}
