import { message as staticMessage } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';

/**
 * The antd message API used outside React. The app registers the one from `App.useApp()` so messages
 * follow the theme and locale; before that (and in tests) the static API is used.
 */
let current: MessageInstance = staticMessage;

export function setMessageApi(api: MessageInstance | null): void {
  current = api ?? staticMessage;
}

export const messageApi = (): MessageInstance => current;
