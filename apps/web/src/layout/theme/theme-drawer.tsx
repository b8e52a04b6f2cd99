import { App, Button, type ButtonProps, Divider, Drawer, Flex, Segmented, Select, Switch, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { LAYOUTS, THEMES, THEME_DRAWER_WIDTH, type LayoutName, type ThemeName } from '../../config/settings';
import { randomThemeName, shellColors } from '../../config/theme';
import { LANGUAGES, useLanguage, type Language } from '../../lib/i18n';
import {
  COLOR_SCHEMES,
  COLUMN_STYLES,
  TABS_BAR_STYLES,
  pickSettings,
  useLayoutSettings,
  type ColorScheme,
  type ColumnStyle,
  type Settings,
  type TabsBarStyle,
} from '../layout-settings';
import { useThemeDrawer } from './theme-drawer-toggle';

type Piece = [left: number, top: number, width: number, height: number, kind: 'menu' | 'sub' | 'bar' | 'accent'];

/** Miniatures of the six layouts, in percent of the thumbnail. */
const THUMBS: Record<LayoutName, Piece[]> = {
  vertical: [
    [0, 0, 24, 100, 'menu'],
    [24, 0, 76, 18, 'bar'],
  ],
  horizontal: [
    [0, 0, 100, 20, 'menu'],
    [30, 7, 14, 6, 'accent'],
    [48, 7, 14, 6, 'accent'],
  ],
  column: [
    [0, 0, 12, 100, 'menu'],
    [12, 0, 20, 100, 'sub'],
    [32, 0, 68, 18, 'bar'],
  ],
  comprehensive: [
    [0, 0, 24, 100, 'menu'],
    [24, 0, 76, 18, 'bar'],
    [30, 6, 14, 6, 'accent'],
    [48, 6, 14, 6, 'accent'],
  ],
  common: [
    [0, 0, 100, 20, 'menu'],
    [0, 20, 24, 80, 'menu'],
    [24, 20, 76, 12, 'bar'],
  ],
  float: [
    [4, 6, 20, 88, 'menu'],
    [28, 0, 72, 18, 'bar'],
  ],
};

function LayoutThumb({ name }: { name: LayoutName }) {
  return (
    <span className="cpc-thumb" aria-hidden>
      {THUMBS[name].map(([left, top, width, height, kind], i) => (
        <span
          key={i}
          className={`cpc-thumb-${kind}`}
          style={{ left: `${left}%`, top: `${top}%`, width: `${width}%`, height: `${height}%` }}
        />
      ))}
    </span>
  );
}

function ThemeSwatch({ name }: { name: ThemeName }) {
  const c = shellColors(name);
  return (
    <span className="cpc-swatch" aria-hidden>
      <span className="cpc-swatch-menu" style={{ background: c.menuBg }} />
      <span className="cpc-swatch-primary" style={{ background: c.primary }} />
    </span>
  );
}

interface ChoiceGridProps<T extends string> {
  options: readonly T[];
  value: T;
  label(option: T): string;
  render(option: T): ReactNode;
  onChange(option: T): void;
  testId: string;
}

/** A grid of picture choices (layouts, themes); a button each, pressed when chosen. */
function ChoiceGrid<T extends string>({ options, value, label, render, onChange, testId }: ChoiceGridProps<T>) {
  return (
    <div className="cpc-choice-grid" role="group">
      {options.map((option) => (
        <button
          key={option}
          type="button"
          className="cpc-choice"
          aria-pressed={option === value}
          onClick={() => onChange(option)}
          data-testid={`${testId}-${option}`}
        >
          {render(option)}
          <span className="cpc-choice-label">{label(option)}</span>
        </button>
      ))}
    </div>
  );
}

function Row({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <Flex justify="space-between" align="center" gap={8} className="cpc-drawer-row">
      <Typography.Text>
        {label}
        {hint && (
          <Typography.Text type="secondary" className="cpc-drawer-hint">
            {hint}
          </Typography.Text>
        )}
      </Typography.Text>
      {children}
    </Flex>
  );
}

const SWITCHES = {
  tabs: ['showTabs', 'showTabsIcon'],
  header: [
    'showSearch',
    'showNotice',
    'showFullScreen',
    'showRefresh',
    'showLanguage',
    'showTheme',
    'showThemeSetting',
  ],
  other: ['showProgressBar', 'showPageTransition'],
} as const satisfies Record<string, readonly (keyof Settings)[]>;

type SwitchKey = (typeof SWITCHES)[keyof typeof SWITCHES][number];

/** Settings that Save keeps; collapse and lock are stored apart, the moment they change. */
const themeOnly = (s: Settings) => ({ ...pickSettings(s), collapse: false, lock: false });
const sameTheme = (a: Settings, b: Settings) => JSON.stringify(themeOnly(a)) === JSON.stringify(themeOnly(b));

function ThemeForm() {
  const { t } = useTranslation();
  const { language, setLanguage } = useLanguage();
  const s = useLayoutSettings(useShallow((st) => pickSettings(st)));
  const update = useLayoutSettings((st) => st.update);
  const dirty = useLayoutSettings((st) => !sameTheme(pickSettings(st), st.saved));

  const toggle = (key: SwitchKey) => {
    // one of the two ways into this drawer always stays
    const lastWayIn = (key === 'showTheme' && !s.showThemeSetting) || (key === 'showThemeSetting' && !s.showTheme);
    return (
      <Switch
        size="small"
        checked={s[key]}
        disabled={s[key] && lastWayIn}
        onChange={(checked) => update({ [key]: checked })}
        data-testid={`setting-${key}`}
      />
    );
  };
  const artAllowed = s.layout !== 'float' && s.layout !== 'horizontal';

  return (
    <>
      {dirty && (
        <Typography.Paragraph type="warning" className="cpc-drawer-unsaved" data-testid="theme-unsaved">
          {t('layout.drawer.unsaved')}
        </Typography.Paragraph>
      )}
      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.layout')}
      </Divider>
      <ChoiceGrid
        options={LAYOUTS}
        value={s.layout}
        label={(o) => t(`layout.layouts.${o}`)}
        render={(o) => <LayoutThumb name={o} />}
        onChange={(layout) => update({ layout })}
        testId="layout-option"
      />

      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.theme')}
      </Divider>
      <ChoiceGrid
        options={THEMES}
        value={s.themeName}
        label={(o) => t(`layout.themes.${o}`)}
        render={(o) => <ThemeSwatch name={o} />}
        onChange={(themeName) => update({ themeName })}
        testId="theme-option"
      />
      <Row label={t('layout.drawer.colorScheme')}>
        <Segmented<ColorScheme>
          size="small"
          value={s.colorScheme}
          options={COLOR_SCHEMES.map((v) => ({ value: v, label: t(`layout.drawer.${v}`) }))}
          onChange={(colorScheme) => update({ colorScheme })}
          data-testid="setting-colorScheme"
        />
      </Row>

      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.menu')}
      </Divider>
      <Row label={t('layout.drawer.background')} hint={artAllowed ? undefined : t('layout.drawer.backgroundHint')}>
        <Switch
          size="small"
          checked={artAllowed && s.background === 'vab-background'}
          disabled={!artAllowed}
          onChange={(on) => update({ background: on ? 'vab-background' : 'none' })}
          data-testid="setting-background"
        />
      </Row>
      <Row
        label={t('layout.drawer.columnStyle')}
        hint={s.layout === 'column' ? undefined : t('layout.drawer.columnStyleHint')}
      >
        <Select<ColumnStyle>
          size="small"
          value={s.columnStyle}
          disabled={s.layout !== 'column'}
          options={COLUMN_STYLES.map((v) => ({ value: v, label: t(`layout.columnStyles.${v}`) }))}
          onChange={(columnStyle) => update({ columnStyle })}
          popupMatchSelectWidth={false}
          style={{ width: 96 }}
          data-testid="setting-columnStyle"
        />
      </Row>

      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.tabs')}
      </Divider>
      {SWITCHES.tabs.map((key) => (
        <Row key={key} label={t(`layout.drawer.${key}`)}>
          {toggle(key)}
        </Row>
      ))}
      <Row label={t('layout.drawer.tabsBarStyle')}>
        <Select<TabsBarStyle>
          size="small"
          value={s.tabsBarStyle}
          disabled={!s.showTabs}
          options={TABS_BAR_STYLES.map((v) => ({ value: v, label: t(`layout.tabsBarStyles.${v}`) }))}
          onChange={(tabsBarStyle) => update({ tabsBarStyle })}
          popupMatchSelectWidth={false}
          style={{ width: 96 }}
          data-testid="setting-tabsBarStyle"
        />
      </Row>

      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.header')}
      </Divider>
      <Row
        label={t('layout.drawer.fixedHeader')}
        hint={s.layout === 'common' ? t('layout.drawer.fixedHeaderHint') : undefined}
      >
        <Switch
          size="small"
          checked={s.fixedHeader && s.layout !== 'common'}
          disabled={s.layout === 'common'}
          onChange={(fixedHeader) => update({ fixedHeader })}
          data-testid="setting-fixedHeader"
        />
      </Row>
      {SWITCHES.header.map((key) => (
        <Row key={key} label={t(`layout.drawer.${key}`)}>
          {toggle(key)}
        </Row>
      ))}

      <Divider titlePlacement="start" plain>
        {t('layout.drawer.sections.other')}
      </Divider>
      <Row label={t('layout.drawer.language')}>
        <Segmented<Language>
          size="small"
          value={language}
          options={LANGUAGES.map((lng) => ({ value: lng, label: t(`language.${lng}`) }))}
          onChange={(lng) => void setLanguage(lng)}
          data-testid="setting-language"
        />
      </Row>
      {SWITCHES.other.map((key) => (
        <Row key={key} label={t(`layout.drawer.${key}`)}>
          {toggle(key)}
        </Row>
      ))}
    </>
  );
}

function DrawerActions({ onSaved }: { onSaved(): void }) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const store = useLayoutSettings;

  const clearCache = () =>
    modal.confirm({
      title: t('layout.drawer.clearCacheTitle'),
      content: t('layout.drawer.clearCacheContent'),
      okButtonProps: { danger: true, 'data-testid': 'clear-cache-ok' } as ButtonProps,
      onOk: () => {
        localStorage.clear();
        window.location.reload();
      },
    });

  return (
    <Flex wrap gap={8} className="cpc-drawer-actions">
      <Button
        type="primary"
        onClick={() => {
          store.getState().save();
          onSaved();
        }}
        data-testid="theme-save"
      >
        {t('layout.drawer.save')}
      </Button>
      <Button onClick={() => store.getState().restoreDefaults()} data-testid="theme-restore">
        {t('layout.drawer.restore')}
      </Button>
      <Button
        onClick={() => store.getState().update({ themeName: randomThemeName(store.getState().themeName) })}
        data-testid="theme-random"
      >
        {t('layout.drawer.random')}
      </Button>
      <Button danger onClick={clearCache} data-testid="theme-clear-cache">
        {t('layout.drawer.clearCache')}
      </Button>
    </Flex>
  );
}

/**
 * The theme drawer (SPEC §2). Every change previews at once; Save stores it, and closing without saving
 * goes back to what was stored. Language switches at once, as it does in the header.
 */
export default function ThemeDrawer() {
  const { t } = useTranslation();
  const open = useThemeDrawer((s) => s.open);
  const setOpen = useThemeDrawer((s) => s.setOpen);
  const close = () => {
    useLayoutSettings.getState().revert();
    setOpen(false);
  };
  return (
    <Drawer
      title={t('layout.drawer.title')}
      placement="right"
      size={THEME_DRAWER_WIDTH}
      open={open}
      onClose={close}
      footer={<DrawerActions onSaved={() => setOpen(false)} />}
      styles={{ body: { paddingBlock: 8, paddingInline: 20 } }}
      className="cpc-theme-drawer"
      data-testid="theme-drawer"
    >
      <ThemeForm />
    </Drawer>
  );
}
