/** Strings of the 403 / 404 pages (namespaced under `error`). */
export default {
  zh: {
    error: {
      forbidden: {
        title: '403',
        subTitle: '抱歉，你没有权限访问此页面',
      },
      notFound: {
        title: '404',
        subTitle: '抱歉，你访问的页面不存在',
      },
    },
  },
  en: {
    error: {
      forbidden: {
        title: '403',
        subTitle: 'Sorry, you are not allowed to open this page.',
      },
      notFound: {
        title: '404',
        subTitle: 'Sorry, the page you are looking for does not exist.',
      },
    },
  },
};
