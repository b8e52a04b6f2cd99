import { CloudUploadOutlined, DeleteOutlined, EyeOutlined, ReloadOutlined, WarningOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Image, Progress, Tooltip, Typography, Upload, theme } from 'antd';
import type { UploadProps } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { messageApi } from '@/lib/feedback';
import { uploadFile } from '@/lib/request';
import { checkUploadFile, UPLOAD_ACCEPT_ATTR } from '../utils/upload-check';

interface ImageUploadProps {
  /** Object key of the uploaded image (the form value). */
  value?: string;
  onChange?: (key: string | undefined) => void;
  /** Caption under the box ("portrait side"). */
  title: string;
  /** Preview of an image the form was prefilled with. */
  initialPreview?: string;
  id?: string;
}

type Phase = 'idle' | 'uploading' | 'done' | 'error';

/**
 * One image slot of the identity form: pick a jpg/png ≤ 10 MB, watch the upload's percentage, see the
 * thumbnail, open it large, replace or remove it. Its value is the object key `uploadFile` returns.
 */
export function ImageUpload({ value, onChange, title, initialPreview, id }: ImageUploadProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { status } = Form.Item.useStatus();
  const [phase, setPhase] = useState<Phase>(value ? 'done' : 'idle');
  const [percent, setPercent] = useState(0);
  const [preview, setPreview] = useState<string | undefined>(initialPreview);
  const [open, setOpen] = useState(false);
  const attempt = useRef(0);
  const objectUrl = useRef<string | undefined>(undefined);

  const dropObjectUrl = () => {
    if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    objectUrl.current = undefined;
  };
  useEffect(() => dropObjectUrl, []);

  // the form was reset or refilled from outside
  useEffect(() => {
    if (!value && phase === 'done') {
      setPhase('idle');
      setPreview(undefined);
    }
  }, [value, phase]);

  const beforeUpload: UploadProps['beforeUpload'] = (file) => {
    const problem = checkUploadFile(file);
    if (problem) {
      messageApi().error(t(problem));
      return Upload.LIST_IGNORE;
    }
    return true;
  };

  const customRequest: UploadProps['customRequest'] = ({ file, onProgress, onSuccess, onError }) => {
    const mine = ++attempt.current;
    const picked = file as File;
    dropObjectUrl();
    objectUrl.current = URL.createObjectURL(picked);
    const local = objectUrl.current;
    setPhase('uploading');
    setPercent(0);
    setPreview(local);
    uploadFile(picked, (p) => {
      if (mine !== attempt.current) return;
      setPercent(Math.min(99, Math.round(p)));
      onProgress?.({ percent: p });
    })
      .then((res) => {
        if (mine !== attempt.current) return;
        setPhase('done');
        setPercent(100);
        // show what the server stored (its signed URL); the local copy only bridged the upload
        if (res.url) setPreview(res.url);
        onChange?.(res.key);
        onSuccess?.(res);
      })
      .catch((err: unknown) => {
        if (mine !== attempt.current) return;
        setPhase('error');
        onChange?.(undefined);
        onError?.(err instanceof Error ? err : new Error(String(err)));
      });
  };

  const remove = () => {
    attempt.current++;
    dropObjectUrl();
    setPhase('idle');
    setPreview(undefined);
    onChange?.(undefined);
  };

  const borderColor =
    status === 'error' || phase === 'error'
      ? token.colorError
      : phase === 'done'
        ? token.colorBorderSecondary
        : token.colorBorder;

  const picker = (children: ReactNode, block = false) => (
    <Upload
      id={id}
      accept={UPLOAD_ACCEPT_ATTR}
      showUploadList={false}
      maxCount={1}
      beforeUpload={beforeUpload}
      customRequest={customRequest}
      disabled={phase === 'uploading'}
      style={block ? { display: 'block', width: '100%', height: '100%' } : undefined}
      styles={
        block
          ? { root: { display: 'block', height: '100%' }, trigger: { display: 'block', height: '100%' } }
          : undefined
      }
    >
      {children}
    </Upload>
  );

  return (
    <Flex vertical gap={6} style={{ width: '100%' }}>
      <div
        style={{
          position: 'relative',
          width: '100%',
          aspectRatio: '1.58 / 1',
          borderRadius: token.borderRadiusLG,
          border: `1px ${phase === 'done' ? 'solid' : 'dashed'} ${borderColor}`,
          background: token.colorFillAlter,
          overflow: 'hidden',
          transition: `border-color ${token.motionDurationMid}`,
        }}
      >
        {phase === 'idle' &&
          picker(
            <Flex
              vertical
              align="center"
              justify="center"
              gap={4}
              role="button"
              tabIndex={0}
              style={{ height: '100%', cursor: 'pointer', padding: 12, textAlign: 'center' }}
            >
              <CloudUploadOutlined style={{ fontSize: 28, color: token.colorPrimary }} />
              <Typography.Text>{t('auth.authenticate.upload.choose')}</Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
                {t('auth.authenticate.form.uploadHint')}
              </Typography.Text>
            </Flex>,
            true,
          )}

        {phase !== 'idle' && preview && (
          <img
            src={preview}
            alt={title}
            style={{
              width: '100%',
              height: '100%',
              objectFit: 'cover',
              display: 'block',
              opacity: phase === 'done' ? 1 : 0.35,
              filter: phase === 'uploading' ? 'blur(1px)' : undefined,
            }}
          />
        )}

        {phase === 'uploading' && (
          <Flex vertical align="center" justify="center" gap={6} style={{ position: 'absolute', inset: 0 }}>
            <Progress type="circle" percent={percent} size={56} />
            <Typography.Text strong>{t('auth.authenticate.upload.uploading', { percent })}</Typography.Text>
          </Flex>
        )}

        {phase === 'error' && (
          <Flex
            vertical
            align="center"
            justify="center"
            gap={8}
            style={{ position: 'absolute', inset: 0, padding: 12, textAlign: 'center' }}
          >
            <Typography.Text type="danger">
              <WarningOutlined /> {t('auth.authenticate.upload.failed')}
            </Typography.Text>
            {picker(
              <Button size="small" icon={<ReloadOutlined />}>
                {t('auth.authenticate.upload.replace')}
              </Button>,
            )}
          </Flex>
        )}

        {phase === 'done' && (
          <Flex
            justify="center"
            gap={4}
            style={{
              position: 'absolute',
              left: 0,
              right: 0,
              bottom: 0,
              padding: 6,
              background: token.colorBgMask,
            }}
          >
            <Tooltip title={t('auth.authenticate.upload.preview')}>
              <Button
                size="small"
                type="text"
                icon={<EyeOutlined />}
                style={{ color: token.colorTextLightSolid }}
                aria-label={t('auth.authenticate.upload.preview')}
                onClick={() => setOpen(true)}
              />
            </Tooltip>
            {picker(
              <Tooltip title={t('auth.authenticate.upload.replace')}>
                <Button
                  size="small"
                  type="text"
                  icon={<ReloadOutlined />}
                  style={{ color: token.colorTextLightSolid }}
                  aria-label={t('auth.authenticate.upload.replace')}
                />
              </Tooltip>,
            )}
            <Tooltip title={t('auth.authenticate.upload.remove')}>
              <Button
                size="small"
                type="text"
                icon={<DeleteOutlined />}
                style={{ color: token.colorTextLightSolid }}
                aria-label={t('auth.authenticate.upload.remove')}
                onClick={remove}
              />
            </Tooltip>
          </Flex>
        )}
      </div>
      <Typography.Text type="secondary" style={{ textAlign: 'center', fontSize: token.fontSizeSM }}>
        {title}
      </Typography.Text>
      {preview && (
        <Image
          src={preview}
          alt={title}
          style={{ display: 'none' }}
          styles={{ root: { display: 'none' } }}
          preview={{ open, onOpenChange: setOpen, src: preview }}
        />
      )}
    </Flex>
  );
}
