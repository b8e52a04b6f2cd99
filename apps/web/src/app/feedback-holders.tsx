import { Modal, notification } from 'antd';
import type { NotificationConfig } from 'antd/es/notification/interface';
import { useEffect } from 'react';
import type { FeedbackExtras } from './app-feedback';

/** The modal and notification holders of `App.useApp()`, in a chunk of their own (see app-feedback.tsx). */
export default function FeedbackHolders({
  config,
  onReady,
}: {
  config?: NotificationConfig;
  onReady: (extras: FeedbackExtras) => void;
}) {
  const [modal, modalHolder] = Modal.useModal();
  const [notificationApi, notificationHolder] = notification.useNotification(config);
  useEffect(() => onReady({ modal, notification: notificationApi }), [modal, notificationApi, onReady]);
  return (
    <>
      {modalHolder}
      {notificationHolder}
    </>
  );
}
