import { ConfigProvider, message } from 'antd';
import AppContext, { type useAppProps } from 'antd/es/app/context';
import useAppStyle from 'antd/es/app/style';
import type { ConfigOptions as MessageConfig } from 'antd/es/message/interface';
import type { ConfigUpdate, ModalFunc } from 'antd/es/modal/confirm';
import type { HookAPI as ModalApi, ModalFuncWithPromise } from 'antd/es/modal/useModal';
import type { NotificationInstance } from 'antd/es/notification/interface';
import {
  lazy,
  Suspense,
  useContext,
  useEffect,
  useMemo,
  useSyncExternalStore,
  type ComponentType,
  type ReactNode,
} from 'react';
import { logError } from '../lib/error-log';
import { setMessageApi } from '../lib/feedback';

/**
 * What antd's `<App>` gives its subtree — `App.useApp()` (message, notification, modal) and the base text
 * style — without carrying the modal and notification code on the first load: messages are needed from
 * the login page on, the other two only inside the signed-in area, which asks for them as it loads
 * (`loadFeedbackExtras`). A call made before they arrive waits for them.
 */

export interface FeedbackExtras {
  modal: ModalApi;
  notification: NotificationInstance;
}

let extras: FeedbackExtras | null = null;
let wanted = false;
const waiting: Array<(value: FeedbackExtras) => void> = [];
const listeners = new Set<() => void>();

function setWanted(value: boolean): void {
  wanted = value;
  for (const listener of listeners) listener();
}

/** A failed download is logged and forgotten, so the next call asks again (with a fresh lazy component). */
const lazyHolders = () =>
  lazy<ComponentType<{ onReady: (extras: FeedbackExtras) => void }>>(() =>
    import('./feedback-holders').catch((error: unknown) => {
      logError(error);
      FeedbackHolders = lazyHolders();
      setWanted(false);
      return { default: () => null };
    }),
  );
let FeedbackHolders = lazyHolders();

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** Loads the modal and notification holders (once); resolves when they are mounted. */
export function loadFeedbackExtras(): Promise<FeedbackExtras> {
  if (extras) return Promise.resolve(extras);
  if (!wanted) setWanted(true);
  return new Promise((resolve) => waiting.push(resolve));
}

function holdersReady(value: FeedbackExtras): void {
  extras = value;
  for (const resolve of waiting.splice(0)) resolve(value);
}

type NotificationMethod = keyof NotificationInstance;
const NOTIFICATION_METHODS: NotificationMethod[] = ['success', 'error', 'info', 'warning', 'open', 'destroy'];

const notificationProxy = Object.fromEntries(
  NOTIFICATION_METHODS.map((method) => [
    method,
    (...args: unknown[]) => {
      const call = (api: NotificationInstance) => (api[method] as (...a: unknown[]) => void)(...args);
      if (extras) call(extras.notification);
      else void loadFeedbackExtras().then((e) => call(e.notification));
    },
  ]),
) as unknown as NotificationInstance;

type ModalMethod = keyof ModalApi;
const MODAL_METHODS: ModalMethod[] = ['info', 'success', 'error', 'warning', 'confirm'];

/** A modal asked for before its holder arrived: opens once it has, and can be updated or closed meanwhile. */
function deferredModal(method: ModalMethod): ModalFuncWithPromise {
  return (config) => {
    if (extras) return extras.modal[method](config);
    let instance: ReturnType<ModalFunc> | undefined;
    let closed = false;
    const updates: ConfigUpdate[] = [];
    // wrapped: antd's modal handle is itself a thenable, which a promise would unwrap
    const opened = loadFeedbackExtras().then(({ modal }): { opening?: ReturnType<ModalFuncWithPromise> } => {
      if (closed) return {};
      const opening = modal[method](config);
      instance = opening;
      for (const update of updates) opening.update(update);
      return { opening };
    });
    return {
      destroy: () => {
        closed = true;
        instance?.destroy();
      },
      update: (update: ConfigUpdate) => {
        if (instance) instance.update(update);
        else updates.push(update);
      },
      then: <T,>(resolve: (confirmed: boolean) => T, reject: VoidFunction) =>
        opened
          .then(({ opening }) =>
            opening ? new Promise<boolean>((done) => void opening.then(done, () => done(false))) : false,
          )
          .then(resolve, reject) as Promise<T>,
    };
  };
}

const modalProxy = Object.fromEntries(
  MODAL_METHODS.map((method) => [method, deferredModal(method)]),
) as unknown as ModalApi;

export function AppFeedback({ message: messageConfig, children }: { message?: MessageConfig; children: ReactNode }) {
  const { getPrefixCls } = useContext(ConfigProvider.ConfigContext);
  const prefixCls = getPrefixCls('app');
  const [hashId, cssVarCls] = useAppStyle(prefixCls);
  const [messageApi, messageHolder] = message.useMessage(messageConfig);
  const holdersWanted = useSyncExternalStore(subscribe, () => wanted);

  // the request layer shows its errors through the same, theme- and locale-aware, instance
  useEffect(() => {
    setMessageApi(messageApi);
    return () => setMessageApi(null);
  }, [messageApi]);

  const value = useMemo<useAppProps>(
    () => ({ message: messageApi, notification: notificationProxy, modal: modalProxy }),
    [messageApi],
  );

  return (
    <AppContext.Provider value={value}>
      <div className={[prefixCls, hashId, cssVarCls].filter(Boolean).join(' ')}>
        {messageHolder}
        {holdersWanted && (
          <Suspense fallback={null}>
            <FeedbackHolders onReady={holdersReady} />
          </Suspense>
        )}
        {children}
      </div>
    </AppContext.Provider>
  );
}
