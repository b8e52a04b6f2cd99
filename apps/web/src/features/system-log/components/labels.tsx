import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { actionKey } from '../utils/filter';

/** An action in the console's language; an action it does not know is shown as the server wrote it. */
export function ActionName({ action }: { action: string }) {
  const { t, i18n } = useTranslation();
  const key = `systemLog.actions.${actionKey(action)}`;
  if (!i18n.exists(key)) return <span>{action}</span>;
  return (
    <Tooltip title={action}>
      <span>{t(key)}</span>
    </Tooltip>
  );
}

const COLORS: Record<string, string> = { ok: 'success', fail: 'error', denied: 'warning' };

export function ResultTag({ result }: { result: string }) {
  const { t, i18n } = useTranslation();
  const key = `systemLog.result.${result}`;
  return <Tag color={COLORS[result] ?? 'default'}>{i18n.exists(key) ? t(key) : result}</Tag>;
}
