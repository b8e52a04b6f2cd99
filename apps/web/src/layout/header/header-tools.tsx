import { Flex } from 'antd';
import { useShallow } from 'zustand/react/shallow';
import { AvatarMenu } from '../avatar-menu';
import { LanguageSwitch } from '../language-switch';
import { useLayoutSettings } from '../layout-settings';
import { ThemeDrawerButton } from '../theme/theme-drawer-toggle';
import { useIsMobile } from '../use-mobile';
import { Clock } from './clock';
import { ErrorLogButton } from './error-log-button';
import { FullScreenButton } from './full-screen-button';
import { LockButton } from './lock-button';
import { NoticePopover } from './notice-popover';
import { RefreshButton } from './refresh-button';
import { SearchButton } from './search-button';

/**
 * The header's tools, right-aligned, each behind its setting (SPEC §2, §3). At phone width the clock,
 * full screen and the language switch (also in the theme drawer) step aside so the row fits.
 */
export function HeaderTools() {
  const isMobile = useIsMobile();
  const s = useLayoutSettings(
    useShallow((st) => ({
      showSearch: st.showSearch,
      showNotice: st.showNotice,
      showFullScreen: st.showFullScreen,
      showRefresh: st.showRefresh,
      showLanguage: st.showLanguage,
      showTheme: st.showTheme,
    })),
  );
  return (
    <Flex align="center" gap={4} className="cpc-header-tools" data-testid="header-tools">
      {s.showSearch && <SearchButton />}
      {s.showNotice && <NoticePopover />}
      {s.showFullScreen && !isMobile && <FullScreenButton />}
      {s.showRefresh && <RefreshButton />}
      {s.showLanguage && !isMobile && <LanguageSwitch />}
      {s.showTheme && <ThemeDrawerButton />}
      <LockButton />
      <ErrorLogButton />
      {!isMobile && <Clock />}
      <AvatarMenu compact={isMobile} />
    </Flex>
  );
}
