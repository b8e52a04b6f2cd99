import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Button, Drawer, Flex, Layout, theme } from 'antd';
import { Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isDarkMenu } from '../config/theme';
import { AppFooter } from './app-footer';
import { AvatarMenu } from './avatar-menu';
import { Breadcrumbs } from './breadcrumbs';
import { LanguageSwitch } from './language-switch';
import { useLayoutSettings } from './layout-settings';
import { Logo } from './logo';
import { PageLoading } from './page-loading';
import { SideMenu } from './side-menu';
import { useIsMobile } from './use-mobile';

const SIDE_WIDTH = 256;
const SIDE_COLLAPSED_WIDTH = 64;

/**
 * The vertical layout (SPEC §2): side menu, header with breadcrumbs and user tools, page, footer.
 * Below the mobile breakpoint the side bar folds away into a drawer opened from the header.
 */
export function MainLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const isMobile = useIsMobile();
  const collapse = useLayoutSettings((s) => s.collapse);
  const toggleCollapse = useLayoutSettings((s) => s.toggleCollapse);
  const dark = isDarkMenu(useLayoutSettings((s) => s.themeName));
  const [drawerOpen, setDrawerOpen] = useState(false);

  const folded = isMobile ? !drawerOpen : collapse;
  const onToggle = isMobile ? () => setDrawerOpen((open) => !open) : toggleCollapse;

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {isMobile ? (
        <Drawer
          placement="left"
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          closable={false}
          size={SIDE_WIDTH}
          styles={{ body: { padding: 0 } }}
        >
          <Layout.Sider width={SIDE_WIDTH} style={{ minHeight: '100%' }}>
            <Logo dark={dark} />
            <SideMenu onNavigate={() => setDrawerOpen(false)} />
          </Layout.Sider>
        </Drawer>
      ) : (
        <Layout.Sider
          width={SIDE_WIDTH}
          collapsedWidth={SIDE_COLLAPSED_WIDTH}
          collapsed={collapse}
          trigger={null}
          collapsible
          style={{ position: 'sticky', top: 0, height: '100vh', overflowY: 'auto' }}
        >
          <Logo collapsed={collapse} dark={dark} />
          <SideMenu />
        </Layout.Sider>
      )}
      <Layout>
        <Layout.Header
          style={{
            position: 'sticky',
            top: 0,
            zIndex: 10,
            display: 'flex',
            alignItems: 'center',
            gap: 8,
            boxShadow: token.boxShadowTertiary,
          }}
        >
          <Button
            type="text"
            icon={folded ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            onClick={onToggle}
            aria-label={t(folded ? 'layout.expand' : 'layout.collapse')}
          />
          {!isMobile && <Breadcrumbs />}
          <Flex flex={1} justify="flex-end" align="center" gap={4}>
            <LanguageSwitch />
            <AvatarMenu compact={isMobile} />
          </Flex>
        </Layout.Header>
        <Layout.Content style={{ padding: isMobile ? 12 : 20 }}>
          <Suspense fallback={<PageLoading />}>{children}</Suspense>
        </Layout.Content>
        <AppFooter />
      </Layout>
    </Layout>
  );
}
