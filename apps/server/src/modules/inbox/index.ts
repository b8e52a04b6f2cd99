/** The message centre's public entry: the inbox calls, how other sections put messages into it, and its mail. */
export { inboxRoutes } from './routes.ts';
export { sendMessages, type NewMessage } from './send.ts';
export { STORED_TITLES, sayTitle } from './titles.ts';
export {
  InboxMailer,
  inboxMail,
  describeMailTarget,
  mailOutboxFile,
  readMailOutbox,
  MAIL_MAX_ATTEMPTS,
  type OutboxMail,
} from './mail.ts';
export { deviceFaultMessages, isDeviceFault, listenForDeviceFaults, DEVICE_FAULTS } from './device-fault.ts';
