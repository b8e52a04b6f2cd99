import { FullscreenExitOutlined, FullscreenOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLayoutSettings } from '../layout-settings';

const isFull = () => typeof document !== 'undefined' && !!document.fullscreenElement;

/** Whole-page full screen (SPEC §2); the icon follows the real state, so Esc leaving it is reflected. */
export function FullScreenButton() {
  const { t } = useTranslation();
  const enabled = useLayoutSettings((s) => s.showFullScreen);
  const [full, setFull] = useState(isFull);

  useEffect(() => {
    const sync = () => setFull(isFull());
    document.addEventListener('fullscreenchange', sync);
    return () => document.removeEventListener('fullscreenchange', sync);
  }, []);

  if (!enabled || typeof document === 'undefined' || !document.fullscreenEnabled) return null;

  const toggle = () => {
    // refused requests (a browser policy, an iframe) leave the page as it is; nothing to report
    if (isFull()) void document.exitFullscreen().catch(() => undefined);
    else void document.documentElement.requestFullscreen().catch(() => undefined);
  };
  const label = t(full ? 'layout.header.fullScreen.exit' : 'layout.header.fullScreen.enter');

  return (
    <Tooltip title={label}>
      <Button
        type="text"
        icon={full ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
        onClick={toggle}
        aria-label={label}
        aria-pressed={full}
        data-testid="full-screen"
      />
    </Tooltip>
  );
}
