import { InboxOutlined } from '@ant-design/icons';
import { Alert, Flex, Progress, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatSize } from '@/lib/format/size';
import { uploadCustomFile } from '../api/system-custom';
import { messageOf } from '../utils/server-error';

/** A file uploaded for the profile: the key the part names, and what the preview needs. */
export interface UploadedMedia {
  key: string;
  url: string;
  mime: string;
  size: number;
  name: string;
  /** The file itself (the preview reads a zip's frames from it without downloading it again). */
  file?: File;
}

/**
 * Uploads one customization file through the `custom` bucket; the server checks its bytes against its name and a
 * refusal (a "picture" that is text, a zip with something else than frames) shows here in the server's words.
 */
export function MediaUpload({
  accept,
  maxBytes,
  hint,
  disabled,
  onUploaded,
  testId,
}: {
  /** The picker's extensions, e.g. ".jpg,.png". */
  accept: string;
  maxBytes: number;
  hint: string;
  disabled?: boolean;
  onUploaded: (m: UploadedMedia) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const [percent, setPercent] = useState<number | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const extensions = accept.split(',').map((x) => x.trim().toLowerCase());

  const pick = (file: File) => {
    setError('');
    setName(file.name);
    if (!extensions.some((x) => file.name.toLowerCase().endsWith(x))) {
      setError(t('systemCustom.media.wrongType', { types: extensions.join(' ') }));
      return false;
    }
    if (file.size > maxBytes) {
      setError(t('systemCustom.media.tooLarge', { max: formatSize(maxBytes) }));
      return false;
    }
    setPercent(0);
    uploadCustomFile(file, setPercent).then(
      (r) => {
        setPercent(null);
        onUploaded({ key: r.key, url: r.url, mime: r.mime, size: r.size, name: file.name, file });
      },
      (e: unknown) => {
        setPercent(null);
        setError(t('systemCustom.media.refused', { reason: messageOf(e) }));
      },
    );
    return false;
  };

  return (
    <Flex vertical gap={8} data-testid={testId}>
      <Upload.Dragger
        accept={accept}
        multiple={false}
        showUploadList={false}
        disabled={disabled || percent !== null}
        beforeUpload={pick}
        aria-label={hint}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('systemCustom.media.drop')}</p>
        <p className="ant-upload-hint">{hint}</p>
      </Upload.Dragger>
      {percent !== null && (
        <Flex vertical gap={2}>
          <Typography.Text ellipsis>{name}</Typography.Text>
          <Progress percent={percent} size="small" status="active" />
        </Flex>
      )}
      {error && <Alert type="error" showIcon title={error} data-testid="upload-error" />}
    </Flex>
  );
}
