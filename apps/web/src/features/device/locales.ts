/** Strings of the device section (namespaced under `device`). */
export default {
  zh: {
    device: {
      list: {
        title: '我的设备',
        empty: '还没有设备',
        columns: {
          name: '设备名称',
          sn: '序列号',
          model: '型号',
          status: '状态',
          paper: '纸张',
          signal: '信号',
          lastSeen: '最后在线',
        },
      },
    },
  },
  en: {
    device: {
      list: {
        title: 'My devices',
        empty: 'No devices yet',
        columns: {
          name: 'Name',
          sn: 'Serial number',
          model: 'Model',
          status: 'Status',
          paper: 'Paper',
          signal: 'Signal',
          lastSeen: 'Last seen',
        },
      },
    },
  },
};
