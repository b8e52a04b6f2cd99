import { PERMISSIONS, type RouteRecord } from '@cpc/contracts';

/** The first sections of the console's menu (`MENU` in seed.ts goes on from them), split off for length. */
export const FIRST_SECTIONS: RouteRecord[] = [
  {
    path: '/',
    name: 'Root',
    component: 'Layout',
    redirect: '/device',
    meta: { title: 'route.home', icon: 'home', hidden: true },
    children: [
      {
        path: 'index',
        name: 'Index',
        component: 'home/index',
        meta: { title: 'route.home', icon: 'home', noClosable: true, hidden: true },
      },
    ],
  },
  {
    path: '/person',
    name: 'Person',
    component: 'Layout',
    meta: { title: 'route.person', hidden: true },
    children: [
      { path: 'info', name: 'PersonInfo', component: 'person/info', meta: { title: 'route.personInfo', hidden: true } },
      {
        path: 'subAccount',
        name: 'SubAccount',
        component: 'person/sub-account',
        meta: { title: 'route.subAccount', hidden: true },
      },
    ],
  },
  {
    // the avatar dropdown's personal centre (SPEC §2): the same page as /person/info, so it leads there (one tab)
    path: '/setting',
    name: 'Setting',
    component: 'Layout',
    redirect: '/person/info',
    meta: { title: 'route.personalCenter', hidden: true },
    children: [
      {
        path: 'personalCenter',
        name: 'PersonalCenter',
        component: 'person/personal-center',
        redirect: '/person/info',
        meta: { title: 'route.personalCenter', hidden: true },
      },
    ],
  },
  {
    path: '/device',
    name: 'Device',
    component: 'Layout',
    redirect: '/device/index',
    meta: { title: 'route.device', icon: 'printer', levelHidden: true },
    children: [
      {
        path: 'index',
        name: 'DeviceIndex',
        component: 'device/index',
        meta: { title: 'route.myDevice', icon: 'printer', activeMenu: '/device' },
      },
      // one tab per device: /device/detail?id=…
      {
        path: 'detail',
        name: 'DeviceDetail',
        component: 'device/detail',
        meta: { title: 'route.deviceDetail', hidden: true, activeMenu: '/device', dynamicNewTab: true },
      },
      { path: 'map', name: 'DeviceMap', component: 'device/map', meta: { title: 'route.deviceMap', icon: 'map' } },
    ],
  },
  {
    // data traffic (SPEC §2: children flowRateSearch and flowRateLog; the "mall goods" screen sits beside them)
    path: '/flowRate',
    name: 'FlowRate',
    component: 'Layout',
    redirect: '/flowRate/flowRateSearch',
    meta: {
      title: 'route.flowRate',
      icon: 'traffic',
      guard: {
        permission: [
          PERMISSIONS.flowRateView,
          PERMISSIONS.flowRateBuy,
          PERMISSIONS.flowRateGoods,
          PERMISSIONS.flowRateRefund,
        ],
      },
    },
    children: [
      {
        path: 'flowRateSearch',
        name: 'FlowRateSearch',
        component: 'flowRate/flowRateSearch',
        meta: { title: 'route.flowRateSearch', icon: 'file-search', guard: { permission: [PERMISSIONS.flowRateView] } },
      },
      {
        path: 'mallGoods',
        name: 'MallGoods',
        component: 'flowRate/mallGoods',
        meta: {
          title: 'route.mall',
          icon: 'shopping',
          guard: { permission: [PERMISSIONS.flowRateBuy, PERMISSIONS.flowRateGoods] },
        },
      },
      {
        path: 'flowRateLog',
        name: 'FlowRateLog',
        component: 'flowRate/flowRateLog',
        meta: {
          title: 'route.flowRateLog',
          icon: 'file',
          guard: { permission: [PERMISSIONS.flowRateView, PERMISSIONS.flowRateRefund] },
        },
      },
    ],
  },
  {
    // SPEC §1 application management: my application, application installation, file acquisition (issue 15)
    path: '/application',
    name: 'Application',
    component: 'Layout',
    redirect: '/application/myApplication',
    meta: {
      title: 'route.application',
      icon: 'appstore',
      guard: {
        permission: [PERMISSIONS.applicationView, PERMISSIONS.fileAcquisitionView],
      },
    },
    children: [
      {
        path: 'myApplication',
        name: 'MyApplication',
        component: 'application/myApplication',
        meta: {
          title: 'route.myApplication',
          icon: 'appstore',
          guard: { permission: [PERMISSIONS.applicationView] },
        },
      },
      {
        path: 'applicationInstall',
        name: 'ApplicationInstall',
        component: 'application/applicationInstall',
        meta: {
          title: 'route.appInstall',
          icon: 'download',
          guard: { permission: [PERMISSIONS.applicationView] },
        },
      },
      {
        path: 'fileAcquisition',
        name: 'FileAcquisition',
        component: 'fileAcquisition/index',
        meta: {
          title: 'route.fileAcquisition',
          icon: 'file',
          guard: { permission: [PERMISSIONS.fileAcquisitionView] },
        },
      },
    ],
  },
  {
    // SPEC §1 upgrade management: device upgrade (firmware and new releases), upgrade tasks (releases) (issue 15)
    path: '/upgrade',
    name: 'Upgrade',
    component: 'Layout',
    redirect: '/upgrade/deviceUpgrade',
    meta: { title: 'route.upgrade', icon: 'cloud-upload', guard: { permission: [PERMISSIONS.upgradeView] } },
    children: [
      {
        path: 'deviceUpgrade',
        name: 'DeviceUpgrade',
        component: 'upgrade/deviceUpgrade',
        meta: { title: 'route.deviceUpgrade', icon: 'cloud-upload', guard: { permission: [PERMISSIONS.upgradeView] } },
      },
      {
        path: 'upgradeTask',
        name: 'UpgradeTask',
        component: 'upgrade/upgradeTask',
        meta: { title: 'route.upgradeTask', icon: 'schedule', guard: { permission: [PERMISSIONS.upgradeView] } },
      },
      // one tab per release: /upgrade/taskDetail?id=…
      {
        path: 'taskDetail',
        name: 'UpgradeTaskDetail',
        component: 'upgrade/taskDetail',
        meta: {
          title: 'route.upgradeTaskDetail',
          hidden: true,
          activeMenu: '/upgrade/upgradeTask',
          dynamicNewTab: true,
          guard: { permission: [PERMISSIONS.upgradeView] },
        },
      },
    ],
  },
  {
    // SPEC §1 AI library: terminal (model packages on devices) and cloud (AI the platform runs) (issue 15)
    path: '/aiLibrary',
    name: 'AiLibrary',
    component: 'Layout',
    redirect: '/aiLibrary/terminal',
    meta: { title: 'route.ai', icon: 'robot', guard: { permission: [PERMISSIONS.aiLibraryView] } },
    children: [
      {
        path: 'terminal',
        name: 'AiTerminal',
        component: 'aiLibrary/terminal',
        meta: { title: 'route.aiTerminal', icon: 'mobile', guard: { permission: [PERMISSIONS.aiLibraryView] } },
      },
      {
        path: 'cloud',
        name: 'AiCloud',
        component: 'aiLibrary/cloud',
        meta: { title: 'route.aiCloud', icon: 'cloud', guard: { permission: [PERMISSIONS.aiLibraryView] } },
      },
    ],
  },
  {
    // SPEC §1 geofencing and fence settings (issue 16): the fences on a map with their devices and events, and the
    // editor where one is drawn (`?id=` edits an existing fence, without it a new one is drawn)
    path: '/fence',
    name: 'Fence',
    component: 'Layout',
    redirect: '/fence/index',
    meta: { title: 'route.fence', icon: 'environment', guard: { permission: [PERMISSIONS.fenceView] } },
    children: [
      {
        path: 'index',
        name: 'FenceIndex',
        component: 'fence/index',
        meta: { title: 'route.fence', icon: 'environment', guard: { permission: [PERMISSIONS.fenceView] } },
      },
      {
        path: 'fenceSetting',
        name: 'FenceSetting',
        component: 'fence/fenceSetting',
        meta: { title: 'route.fenceSetting', icon: 'aim', guard: { permission: [PERMISSIONS.fenceView] } },
      },
    ],
  },
];
