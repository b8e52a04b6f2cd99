import { DownloadOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Form, Input, Tooltip, Typography } from 'antd';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The frame of a list screen: a title with its one-line explanation and the screen's main action, a toolbar of
 * filters, then the table; dialogs and drawers go in `overlays`.
 */
export function ListPage({
  title,
  subtitle,
  action,
  toolbar,
  children,
  overlays,
}: {
  title: ReactNode;
  subtitle: ReactNode;
  action?: ReactNode;
  toolbar?: ReactNode;
  children: ReactNode;
  overlays?: ReactNode;
}) {
  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ minWidth: 0, flex: '1 1 240px' }}>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {title}
            </Typography.Title>
            <Typography.Text type="secondary">{subtitle}</Typography.Text>
          </div>
          {action}
        </Flex>
        {toolbar}
        {children}
      </Flex>
      {overlays}
    </Card>
  );
}

/** A keyword search beside a refresh button, as every list's toolbar has it. */
export function SearchAndRefresh({
  placeholder,
  refreshLabel,
  onSearch,
  refreshing,
  onRefresh,
  style,
}: {
  placeholder: string;
  refreshLabel: string;
  /** The trimmed keyword ('' when cleared). */
  onSearch: (keyword: string) => void;
  refreshing: boolean;
  onRefresh: () => void;
  style?: CSSProperties;
}) {
  return (
    <Flex gap={8} style={{ flex: '1 1 240px', maxWidth: 400, ...style }}>
      <Input.Search allowClear maxLength={50} placeholder={placeholder} onSearch={(v) => onSearch(v.trim())} />
      <Tooltip title={refreshLabel}>
        <Button icon={<ReloadOutlined />} aria-label={refreshLabel} loading={refreshing} onClick={onRefresh} />
      </Tooltip>
    </Flex>
  );
}

/**
 * The end of a filter form: Search (submits the form), Reset (the caller clears its fields and searches again) and,
 * when the list can be exported, Export CSV.
 */
export function FilterActions({
  onReset,
  onExport,
  exporting,
  searchTestId,
}: {
  onReset: () => void;
  onExport?: () => void;
  exporting?: boolean;
  searchTestId?: string;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid={searchTestId}>
          {t('list.search')}
        </Button>
      </Form.Item>
      <Form.Item>
        <Button icon={<ReloadOutlined />} onClick={onReset}>
          {t('list.reset')}
        </Button>
      </Form.Item>
      {onExport && (
        <Form.Item>
          <Button icon={<DownloadOutlined />} loading={exporting} onClick={onExport}>
            {t('list.export')}
          </Button>
        </Form.Item>
      )}
    </>
  );
}
