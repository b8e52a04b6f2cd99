import { SettingOutlined } from '@ant-design/icons';
import { Button, Checkbox, Divider, Flex, Popover, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { OPTIONAL_COLUMNS, type OptionalColumn } from '../hooks/use-device-columns';

interface ColumnChooserProps {
  visible: Set<OptionalColumn>;
  customised: boolean;
  onToggle: (key: OptionalColumn, show: boolean) => void;
  onReset: () => void;
}

/** Which of the list's columns show: a checkbox each, kept for this user. */
export function ColumnChooser({ visible, customised, onToggle, onReset }: ColumnChooserProps) {
  const { t } = useTranslation();
  const content = (
    <Flex vertical gap={6} data-testid="column-chooser" style={{ minWidth: 160 }}>
      {OPTIONAL_COLUMNS.map((key) => (
        <Checkbox key={key} checked={visible.has(key)} onChange={(e) => onToggle(key, e.target.checked)}>
          {t(`device.list.columns.${key}`)}
        </Checkbox>
      ))}
      <Divider style={{ margin: '4px 0' }} />
      <Button
        size="small"
        type="link"
        disabled={!customised}
        onClick={onReset}
        style={{ alignSelf: 'flex-start', padding: 0 }}
      >
        {t('device.list.chooser.reset')}
      </Button>
    </Flex>
  );
  return (
    <Popover trigger="click" placement="bottomRight" title={t('device.list.chooser.title')} content={content}>
      <Tooltip title={t('device.list.chooser.title')}>
        <Button
          icon={<SettingOutlined />}
          aria-label={t('device.list.chooser.title')}
          data-testid="column-chooser-button"
        />
      </Tooltip>
    </Popover>
  );
}
