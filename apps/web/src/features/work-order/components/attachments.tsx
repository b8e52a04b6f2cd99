import { PaperClipOutlined, UploadOutlined } from '@ant-design/icons';
import { App, Button, Flex, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WORK_ORDER_ATTACHMENTS_MAX, type WorkOrderAttachment } from '@cpc/contracts/work-order';
import { uploadAttachment } from '../api/work-order';
import { ATTACHMENT_ACCEPT_ATTR, checkAttachment, formatBytes } from '../utils/attachment';

/** An attachment of the form: uploaded (it has its key) or on its way. */
export interface PickedAttachment {
  key: string;
  name: string;
  size: number;
  url?: string;
}

interface AttachmentInputProps {
  value?: PickedAttachment[];
  onChange?: (value: PickedAttachment[]) => void;
  disabled?: boolean;
  'data-testid'?: string;
}

/**
 * Attachments of a work order or a reply (an antd Form.Item control): each file is checked here (type by its name,
 * at most 10 MB), uploaded at once through the upload-token flow, and the form holds the object keys.
 */
export function AttachmentInput({ value = [], onChange, disabled, 'data-testid': testId }: AttachmentInputProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [uploading, setUploading] = useState<UploadFile[]>([]);
  // uploads finish after renders: each adds itself to the list as it is then
  const latest = useRef(value);
  latest.current = value;

  const fileList: UploadFile[] = [
    ...value.map((a) => ({ uid: a.key, name: a.name, status: 'done' as const, url: a.url, size: a.size })),
    ...uploading,
  ];

  return (
    <Upload
      multiple
      accept={ATTACHMENT_ACCEPT_ATTR}
      disabled={disabled}
      fileList={fileList}
      beforeUpload={(file) => {
        const problem = checkAttachment(file);
        if (problem) {
          message.error(t(`workOrder.attachment.${problem}`, { name: file.name }));
          return Upload.LIST_IGNORE;
        }
        if (value.length + uploading.length >= WORK_ORDER_ATTACHMENTS_MAX) {
          message.error(t('workOrder.attachment.tooMany', { n: WORK_ORDER_ATTACHMENTS_MAX }));
          return Upload.LIST_IGNORE;
        }
        return true;
      }}
      customRequest={({ file, onProgress, onSuccess, onError }) => {
        const f = file as File & { uid: string };
        setUploading((u) => [...u, { uid: f.uid, name: f.name, status: 'uploading', percent: 0 }]);
        uploadAttachment(f, (percent) => {
          onProgress?.({ percent });
          setUploading((u) => u.map((x) => (x.uid === f.uid ? { ...x, percent } : x)));
        })
          .then(({ key, url }) => {
            setUploading((u) => u.filter((x) => x.uid !== f.uid));
            latest.current = [...latest.current, { key, name: f.name, size: f.size, url }];
            onChange?.(latest.current);
            onSuccess?.({ key });
          })
          .catch((e: Error) => {
            // the request layer has shown the server's reason
            setUploading((u) => u.filter((x) => x.uid !== f.uid));
            onError?.(e);
          });
      }}
      onRemove={(file) => {
        onChange?.(value.filter((a) => a.key !== file.uid));
        return true;
      }}
      data-testid={testId}
    >
      <Button icon={<UploadOutlined />} disabled={disabled}>
        {t('workOrder.attachment.add')}
      </Button>
      <Typography.Text type="secondary" style={{ marginInlineStart: 8, fontSize: 12 }}>
        {t('workOrder.attachment.hint', { n: WORK_ORDER_ATTACHMENTS_MAX })}
      </Typography.Text>
    </Upload>
  );
}

/** Attachments to download: each a link to its signed URL with its size. */
export function AttachmentList({ items }: { items: WorkOrderAttachment[] }) {
  if (!items.length) return null;
  return (
    <Flex vertical gap={2} data-testid="work-order-attachments">
      {items.map((a) => (
        <Typography.Link key={a.id} href={a.url} target="_blank" rel="noopener noreferrer" download={a.name}>
          <PaperClipOutlined /> {a.name}{' '}
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            ({formatBytes(a.size)})
          </Typography.Text>
        </Typography.Link>
      ))}
    </Flex>
  );
}
