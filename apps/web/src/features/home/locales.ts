/** Strings of the home dashboard tab (namespaced under `home`). */
export default {
  zh: {
    home: {
      welcome: '你好，{{name}}',
      subtitle: '欢迎使用云打印控制台',
      widgets: {
        title: '数据概览',
        pending: '设备接入后，这里将显示设备在线、流量与工单等数据看板。',
        toDevices: '查看我的设备',
      },
    },
  },
  en: {
    home: {
      welcome: 'Hello, {{name}}',
      subtitle: 'Welcome to the cloud printing console',
      widgets: {
        title: 'Overview',
        pending: 'Dashboard widgets (devices online, data traffic, work orders) arrive here once your devices are connected.',
        toDevices: 'Go to my devices',
      },
    },
  },
};
