/** Strings of the tab bar and the header's refresh button (namespaced under `layout.tabs`). */
export default {
  zh: {
    layout: {
      tabs: {
        list: '已打开的页面',
        actions: '标签页操作',
        refresh: '重新加载',
        refreshPage: '刷新页面',
        close: '关闭',
        closeTab: '关闭“{{title}}”',
        objectTitle: '{{page}} · {{name}}',
        closeOthers: '关闭其他',
        closeLeft: '关闭左侧',
        closeRight: '关闭右侧',
        closeAll: '关闭全部',
      },
    },
  },
  en: {
    layout: {
      tabs: {
        list: 'Open pages',
        actions: 'Tab actions',
        refresh: 'Reload',
        refreshPage: 'Refresh page',
        close: 'Close',
        closeTab: 'Close “{{title}}”',
        objectTitle: '{{page}} · {{name}}',
        closeOthers: 'Close others',
        closeLeft: 'Close tabs to the left',
        closeRight: 'Close tabs to the right',
        closeAll: 'Close all',
      },
    },
  },
};
