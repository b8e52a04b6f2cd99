/** The message centre's public entry: the inbox calls, and how other sections put messages into it. */
export { inboxRoutes } from './routes.ts';
export { sendMessages, type NewMessage } from './send.ts';
export { STORED_TITLES, sayTitle } from './titles.ts';
