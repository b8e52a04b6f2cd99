import { SUCCESS_CODES, TOKEN_NAME } from '@cpc/contracts/constants';

/** Every constant of SPEC §9 (and the fixed choices of §1–§8) in one place. */

/** i18n key of the product title; the document title and footer translate it. */
export const TITLE_KEY = 'app.title';

/** Request layer (SPEC §7–§9). */
export const BASE_URL = '/apiAdmin';
export const REQUEST_TIMEOUT = 100_000;
export const UPLOAD_TIMEOUT = 1_800_000;
export const CONTENT_TYPE_JSON = 'application/json;charset=UTF-8';
export const CONTENT_TYPE_FORM = 'application/x-www-form-urlencoded;charset=UTF-8';
export const CODE_FIELD = 'code';
export const MESSAGE_FIELD = 'msg';
export { SUCCESS_CODES };
/** Calls that show the global loading indicator while in flight. */
export const LOADING_URL_MARKERS = ['departmentEdit'];
/** Calls never payload-encrypted: "login RSA is off", uploads, and the key / refresh exchanges themselves. */
export const PLAIN_URLS = ['/user/v1/login', '/user/login', '/socialLogin', '/publicKey', '/refreshToken', '/upload'];
export const UPLOAD_BUCKET = 'permanentfile';

/** Lazy chunks that have not arrived after this long fail with a chunk-load error. */
export const CHUNK_TIMEOUT = 120_000;

/** Session storage (SPEC §3, §9). */
export const TOKEN_STORAGE = 'sessionStorage' as const;
export const TOKEN_KEY = 'admin-plus-token';
/** Field of the login / refresh result that carries the token. */
export const TOKEN_FIELD = TOKEN_NAME;
export const USERNAME_KEY = 'username';
export const IS_SUPER_KEY = 'is_super';
export const IS_AUTHENTICATE_KEY = 'is_authenticate';
export const DEFAULT_USERNAME = 'guest';
export const DEFAULT_IS_SUPER = 2;
export const DEFAULT_IS_AUTHENTICATE = 0;
/** Identity authentication status meaning "authenticated" (DESIGN §3). */
export const AUTHENTICATED_STATUS = 1;

/** Feedback and shell. */
export const MESSAGE_DURATION = 3000;
export const KEEP_ALIVE_MAX = 20;
export const MOBILE_BREAKPOINT = 992;
export const THEME_DRAWER_WIDTH = 285;
export const LANGUAGE_KEY = 'language';
export const LAYOUT_SETTINGS_KEY = 'admin-plus-layout';

export const LANGUAGES = ['zh', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh';

export const LAYOUTS = ['vertical', 'horizontal', 'column', 'comprehensive', 'common', 'float'] as const;
export type LayoutName = (typeof LAYOUTS)[number];
export const DEFAULT_LAYOUT: LayoutName = 'vertical';

export const THEMES = [
  'blue-black',
  'blue-white',
  'green-black',
  'green-white',
  'purple-black',
  'purple-white',
  'red-black',
  'red-white',
  'ocean',
] as const;
export type ThemeName = (typeof THEMES)[number];
export const DEFAULT_THEME: ThemeName = 'blue-black';

/** Menu (SPEC §9): groups opened by default, unique-open off, the first group opens too. */
export const DEFAULT_OPENEDS = [
  '/vab',
  '/vab/table',
  '/vab/icon',
  '/vab/form',
  '/vab/editor',
  '/other/drag',
  '/device',
  '/systemCustom',
  '/application',
];
export const UNIQUE_OPENED = false;
export const OPEN_FIRST_MENU = true;
export const MENU_SCROLL_THRESHOLD = 18;

/** Routing (SPEC §2, §4). */
export const ROUTER_MODE = 'hash' as const;
export const LOGIN_PATH = '/login';
export const HOME_PATH = '/';
export const AUTHENTICATE_PATH = '/account/authenticate';
export const FORBIDDEN_PATH = '/403';
export const NOT_FOUND_PATH = '/404';
export const WHITE_LIST = [
  '/login',
  '/login88121',
  '/register',
  '/callback',
  '/404',
  '/403',
  '/account/register',
  '/account/authenticate',
];
/** Keep the intended path in `?redirect=` when the guard sends a visitor to the login page. */
export const RECORD_ROUTE = true;
/** SPEC §6: role-based control off, routes come entirely from the server. */
export const ROLE_CONTROL = false;
export const AUTHENTICATION = 'all' as const;

/** Progress bar (SPEC §9). */
export const PROGRESS_SPEED = 500;
export const PROGRESS_TRICKLE = 200;
/** A page refresh ends its progress bar after this long. */
export const REFRESH_PROGRESS_DONE = 200;
