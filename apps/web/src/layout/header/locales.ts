/** Strings of the header tools (namespaced under `layout.header`): full screen, notices, search, clock, lock, error log. */
export default {
  zh: {
    layout: {
      header: {
        fullScreen: {
          enter: '全屏',
          exit: '退出全屏',
        },
        notice: {
          button: '通知',
          buttonUnread: '通知（{{count}} 条未读）',
          tabs: {
            notice: '通知',
            email: '邮件',
          },
          pinned: '置顶',
          emptyNotice: '暂无通知',
          emptyEmail: '暂无邮件',
          markAllRead: '全部已读',
          viewAll: '查看全部',
          loadFailed: '加载失败',
          retry: '重试',
          unreadDot: '未读',
        },
        search: {
          button: '搜索菜单',
          title: '搜索菜单',
          placeholder: '输入菜单名称或路径',
          empty: '没有匹配的菜单',
          hint: '↑ ↓ 选择，Enter 打开，Esc 关闭',
          external: '外部链接',
        },
        clock: {
          label: '当前时间',
        },
        lock: {
          button: '锁屏',
          title: '屏幕已锁定',
          placeholder: '输入登录密码解锁',
          unlock: '解锁',
          required: '请输入密码',
          wrong: '请输入正确的密码',
          attemptsLeft: '再错 {{count}} 次将退出登录',
          logout: '退出登录',
        },
        errorLog: {
          button: '错误日志',
          title: '错误日志',
          count: '共 {{count}} 条',
          route: '页面',
          time: '时间',
          repeated: '重复 {{count}} 次',
          details: '详情',
          stack: '调用栈',
          dismiss: '暂不显示',
          close: '关闭',
        },
        time: {
          justNow: '刚刚',
        },
      },
    },
  },
  en: {
    layout: {
      header: {
        fullScreen: {
          enter: 'Full screen',
          exit: 'Exit full screen',
        },
        notice: {
          button: 'Notifications',
          buttonUnread: 'Notifications ({{count}} unread)',
          tabs: {
            notice: 'Notices',
            email: 'Mail',
          },
          pinned: 'Pinned',
          emptyNotice: 'No notices yet',
          emptyEmail: 'No mail yet',
          markAllRead: 'Mark all read',
          viewAll: 'View all',
          loadFailed: 'Could not load',
          retry: 'Retry',
          unreadDot: 'Unread',
        },
        search: {
          button: 'Search menu',
          title: 'Search menu',
          placeholder: 'Type a menu name or path',
          empty: 'No matching menu',
          hint: '↑ ↓ to select, Enter to open, Esc to close',
          external: 'External link',
        },
        clock: {
          label: 'Current time',
        },
        lock: {
          button: 'Lock screen',
          title: 'Screen locked',
          placeholder: 'Enter your login password to unlock',
          unlock: 'Unlock',
          required: 'Please enter your password',
          wrong: 'please enter the correct password',
          attemptsLeft: 'attempts left before you are signed out: {{count}}',
          logout: 'Log out',
        },
        errorLog: {
          button: 'Error log',
          title: 'Error log',
          count: '{{count}} in total',
          route: 'Page',
          time: 'Time',
          repeated: 'Repeated {{count}} times',
          details: 'Details',
          stack: 'Stack',
          dismiss: 'Do not show',
          close: 'Close',
        },
        time: {
          justNow: 'just now',
        },
      },
    },
  },
};
