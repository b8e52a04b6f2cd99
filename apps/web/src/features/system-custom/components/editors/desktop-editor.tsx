import { ArrowDownOutlined, ArrowUpOutlined, CloseOutlined } from '@ant-design/icons';
import { Avatar, Button, Checkbox, Empty, Flex, Form, InputNumber, Segmented, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { DESKTOP_ICON_SIZES, SYSTEM_ICONS, type ProfileSettings } from '@cpc/contracts/system-custom';
import { desktopPages, moveItem } from '../../utils/order';
import { AppSelect, useAppLabel } from '../app-select';
import { ScreenFrame } from '../screen-frame';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['desktop']>;
type IconSize = (typeof DESKTOP_ICON_SIZES)[number];
type SystemIcon = (typeof SYSTEM_ICONS)[number];
interface Values {
  columns: number;
  rows: number;
  iconSize: IconSize;
  apps: string[];
  hiddenSystemIcons: SystemIcon[];
}

const ICON_PX: Record<IconSize, number> = { small: 22, medium: 28, large: 36 };

/** The apps in their order, each with up / down / remove (no drag library is installed). */
function OrderedApps({
  value = [],
  onChange,
  disabled,
}: {
  value?: string[];
  onChange?: (v: string[]) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const label = useAppLabel();
  if (!value.length)
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('systemCustom.desktop.noApps')} />;
  return (
    <Flex vertical gap={4} data-testid="desktop-order">
      {value.map((pkg, i) => (
        <Flex
          key={pkg}
          align="center"
          gap={8}
          style={{
            padding: '4px 8px',
            border: `1px solid ${token.colorBorderSecondary}`,
            borderRadius: token.borderRadius,
          }}
        >
          <Typography.Text type="secondary" style={{ width: 20, flex: 'none' }}>
            {i + 1}
          </Typography.Text>
          <Typography.Text ellipsis style={{ flex: 1, minWidth: 0 }}>
            {label(pkg)}
          </Typography.Text>
          <Button
            size="small"
            type="text"
            icon={<ArrowUpOutlined />}
            aria-label={t('systemCustom.desktop.up', { app: pkg })}
            disabled={disabled || i === 0}
            onClick={() => onChange?.(moveItem(value, i, -1))}
          />
          <Button
            size="small"
            type="text"
            icon={<ArrowDownOutlined />}
            aria-label={t('systemCustom.desktop.down', { app: pkg })}
            disabled={disabled || i === value.length - 1}
            onClick={() => onChange?.(moveItem(value, i, 1))}
          />
          <Button
            size="small"
            type="text"
            icon={<CloseOutlined />}
            aria-label={t('systemCustom.desktop.removeApp', { app: pkg })}
            disabled={disabled}
            onClick={() => onChange?.(value.filter((x) => x !== pkg))}
          />
        </Flex>
      ))}
    </Flex>
  );
}

/** The home screen's first page as the terminal will show it: the apps in order on the grid, the dock of system icons. */
function DesktopPreview({ v }: { v: Values }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const label = useAppLabel();
  const pages = desktopPages(v.apps, v.columns, v.rows);
  const size = ICON_PX[v.iconSize];
  const dock = SYSTEM_ICONS.filter((i) => !v.hiddenSystemIcons.includes(i)).slice(0, 5);
  return (
    <Flex vertical gap={8} align="center">
      <ScreenFrame testId="desktop-preview">
        <Flex vertical style={{ height: '100%', padding: 8 }}>
          <div
            style={{
              flex: 1,
              display: 'grid',
              gridTemplateColumns: `repeat(${v.columns}, 1fr)`,
              gridTemplateRows: `repeat(${v.rows}, 1fr)`,
              gap: 2,
            }}
          >
            {pages[0].map((pkg, i) => (
              <Flex key={pkg ?? `empty-${i}`} vertical align="center" justify="center" style={{ minWidth: 0 }}>
                {pkg && (
                  <>
                    <Avatar
                      shape="square"
                      size={size}
                      style={{ background: token.colorPrimary, fontSize: size / 2.2, flex: 'none' }}
                    >
                      {label(pkg).slice(0, 1).toUpperCase()}
                    </Avatar>
                    <Typography.Text ellipsis style={{ fontSize: 9, maxWidth: '100%' }}>
                      {label(pkg).replace(/ \(.*\)$/, '')}
                    </Typography.Text>
                  </>
                )}
              </Flex>
            ))}
          </div>
          <Flex
            justify="center"
            gap={4}
            wrap
            style={{ paddingTop: 4, borderTop: `1px solid ${token.colorBorderSecondary}` }}
          >
            {dock.map((i) => (
              <Typography.Text key={i} type="secondary" style={{ fontSize: 9 }}>
                {t(`systemCustom.desktop.icons.${i}`)}
              </Typography.Text>
            ))}
          </Flex>
        </Flex>
      </ScreenFrame>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {pages.length > 1 ? t('systemCustom.desktop.pages', { n: pages.length }) : t('systemCustom.preview')}
      </Typography.Text>
    </Flex>
  );
}

function Fields({ form, readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  const watched = Form.useWatch([], form) as Partial<Values> | undefined;
  const v: Values = { ...desktopEditor.initial(null), ...watched } as Values;
  return (
    <Flex gap={24} wrap align="flex-start">
      <Flex vertical style={{ flex: '1 1 300px', minWidth: 0 }}>
        <Flex gap={16} wrap>
          <Form.Item name="columns" label={t('systemCustom.desktop.columns')}>
            <InputNumber min={2} max={10} precision={0} style={{ width: 110 }} />
          </Form.Item>
          <Form.Item name="rows" label={t('systemCustom.desktop.rows')}>
            <InputNumber min={2} max={10} precision={0} style={{ width: 110 }} />
          </Form.Item>
          <Form.Item name="iconSize" label={t('systemCustom.desktop.iconSize')}>
            <Segmented
              options={DESKTOP_ICON_SIZES.map((s) => ({ value: s, label: t(`systemCustom.desktop.sizes.${s}`) }))}
            />
          </Form.Item>
        </Flex>
        <Form.Item
          label={t('systemCustom.desktop.apps')}
          extra={t('systemCustom.desktop.appsHint', { n: v.columns * v.rows })}
        >
          <Flex vertical gap={8}>
            <Form.Item name="apps" noStyle>
              <AppSelect multiple disabled={readOnly} testId="desktop-apps" />
            </Form.Item>
            <Form.Item name="apps" noStyle>
              <OrderedApps disabled={readOnly} />
            </Form.Item>
          </Flex>
        </Form.Item>
        <Form.Item name="hiddenSystemIcons" label={t('systemCustom.desktop.hidden')}>
          <Checkbox.Group
            options={SYSTEM_ICONS.map((i) => ({ value: i, label: t(`systemCustom.desktop.icons.${i}`) }))}
          />
        </Form.Item>
      </Flex>
      <div style={{ flex: '0 1 220px', margin: '0 auto' }}>
        <DesktopPreview v={v} />
      </div>
    </Flex>
  );
}

export const desktopEditor: PartEditorDef<Out, Values, Values> = {
  initial: (v) => ({
    columns: v?.columns ?? 4,
    rows: v?.rows ?? 5,
    iconSize: v?.iconSize ?? 'medium',
    apps: v?.apps ?? [],
    hiddenSystemIcons: v?.hiddenSystemIcons ?? [],
  }),
  toInput: (v) => ({
    columns: v.columns,
    rows: v.rows,
    iconSize: v.iconSize,
    apps: v.apps,
    hiddenSystemIcons: v.hiddenSystemIcons,
  }),
  Fields,
};
