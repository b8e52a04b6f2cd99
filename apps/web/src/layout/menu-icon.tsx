import {
  AimOutlined,
  ApiOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BellOutlined,
  CloudOutlined,
  CloudUploadOutlined,
  DashboardOutlined,
  DesktopOutlined,
  DownloadOutlined,
  EnvironmentOutlined,
  FileSearchOutlined,
  FileTextOutlined,
  HomeOutlined,
  IdcardOutlined,
  LockOutlined,
  MobileOutlined,
  NotificationOutlined,
  PictureOutlined,
  PlaySquareOutlined,
  PrinterOutlined,
  PushpinOutlined,
  QuestionCircleOutlined,
  RobotOutlined,
  RocketOutlined,
  SafetyOutlined,
  ScheduleOutlined,
  SendOutlined,
  SettingOutlined,
  ShoppingOutlined,
  SkinOutlined,
  StopOutlined,
  SwapOutlined,
  TeamOutlined,
  ToolOutlined,
  UserOutlined,
  WarningOutlined,
  WifiOutlined,
} from '@ant-design/icons';
import type { ComponentType } from 'react';

/**
 * Menu icons by the names the server's records use. A fixed map rather than the whole icon set keeps
 * the bundle small; remixicon-style names ('home-2-line') are accepted by their stem.
 */
const ICONS: Record<string, ComponentType> = {
  home: HomeOutlined,
  dashboard: DashboardOutlined,
  printer: PrinterOutlined,
  device: PrinterOutlined,
  wifi: WifiOutlined,
  traffic: WifiOutlined,
  api: ApiOutlined,
  integration: ApiOutlined,
  tool: ToolOutlined,
  'work-order': FileTextOutlined,
  file: FileTextOutlined,
  'file-search': FileSearchOutlined,
  notice: NotificationOutlined,
  notification: NotificationOutlined,
  bell: BellOutlined,
  setting: SettingOutlined,
  settings: SettingOutlined,
  safety: SafetyOutlined,
  shield: SafetyOutlined,
  idcard: IdcardOutlined,
  audit: AuditOutlined,
  user: UserOutlined,
  team: TeamOutlined,
  lock: LockOutlined,
  app: AppstoreOutlined,
  appstore: AppstoreOutlined,
  apps: AppstoreOutlined,
  desktop: DesktopOutlined,
  picture: PictureOutlined,
  image: PictureOutlined,
  map: EnvironmentOutlined,
  environment: EnvironmentOutlined,
  'map-pin': EnvironmentOutlined,
  aim: AimOutlined,
  play: PlaySquareOutlined,
  pushpin: PushpinOutlined,
  rocket: RocketOutlined,
  skin: SkinOutlined,
  upgrade: SwapOutlined,
  robot: RobotOutlined,
  ai: RobotOutlined,
  cloud: CloudOutlined,
  'cloud-upload': CloudUploadOutlined,
  download: DownloadOutlined,
  mobile: MobileOutlined,
  schedule: ScheduleOutlined,
  send: SendOutlined,
  push: SendOutlined,
  shopping: ShoppingOutlined,
  warning: WarningOutlined,
  error: WarningOutlined,
  stop: StopOutlined,
  question: QuestionCircleOutlined,
};

/** Every icon name the menu knows, for the icon picker of menu management. */
export const MENU_ICON_NAMES: string[] = Object.keys(ICONS);

const stem = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/(outlined|filled|twotone)$/, '')
    .replace(/-(line|fill)$/, '')
    .replace(/-\d+$/, '');

export function MenuIcon({ name }: { name?: string }) {
  if (!name) return null;
  const Icon = ICONS[stem(name)];
  return Icon ? <Icon /> : null;
}
