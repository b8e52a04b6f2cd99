import { CameraOutlined, UserOutlined } from '@ant-design/icons';
import { App, Avatar, Button, Flex, Progress, Typography, Upload, theme } from 'antd';
import type { UploadProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { uploadFile } from '@/lib/request';
import { checkImageFile, IMAGE_ACCEPT_ATTR } from '@/lib/upload-check';
import { useUpdateAvatar } from '../api/profile';

const SIZE = 96;

/**
 * The avatar with its "change" button: a jpg/png ≤ 10 MB goes through the upload-token flow with a
 * percentage, then becomes the avatar; the header shows it at once (see useUpdateAvatar).
 */
export function AvatarUpload({ src }: { src: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { message } = App.useApp();
  const save = useUpdateAvatar();
  const [percent, setPercent] = useState<number | null>(null);
  const busy = percent !== null || save.isPending;

  const beforeUpload: UploadProps['beforeUpload'] = (file) => {
    const problem = checkImageFile(file);
    if (problem) {
      message.error(t(`user.avatar.${problem}`));
      return Upload.LIST_IGNORE;
    }
    return true;
  };

  const send = async ({ file, onSuccess, onError }: Parameters<NonNullable<UploadProps['customRequest']>>[0]) => {
    setPercent(0);
    try {
      // at 100 % the bytes are sent but the server is still checking them: hold at 99 until it answers
      const uploaded = await uploadFile(file as File, (p) => setPercent(Math.min(99, p)));
      setPercent(100);
      await save.mutateAsync(uploaded.key);
      message.success(t('user.avatar.saved'));
      onSuccess?.(uploaded);
    } catch (err) {
      // the request layer has already shown the server's reason
      onError?.(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setPercent(null);
    }
  };
  const customRequest: UploadProps['customRequest'] = (options) => void send(options);

  return (
    <Flex vertical align="center" gap={8}>
      <div style={{ position: 'relative', width: SIZE, height: SIZE }}>
        <Avatar
          size={SIZE}
          src={src || undefined}
          icon={<UserOutlined />}
          alt={t('user.avatar.alt')}
          data-testid="profile-avatar"
        />
        {percent !== null && (
          <Flex
            align="center"
            justify="center"
            style={{ position: 'absolute', inset: 0, borderRadius: '50%', background: token.colorBgMask }}
            role="progressbar"
            aria-valuenow={percent}
            aria-label={t('user.avatar.uploading', { percent })}
          >
            <Progress
              type="circle"
              percent={percent}
              size={64}
              strokeColor={token.colorWhite}
              format={(p) => <span style={{ color: token.colorWhite }}>{p}%</span>}
            />
          </Flex>
        )}
      </div>
      <Upload
        accept={IMAGE_ACCEPT_ATTR}
        showUploadList={false}
        maxCount={1}
        beforeUpload={beforeUpload}
        customRequest={customRequest}
        disabled={busy}
      >
        <Button size="small" icon={<CameraOutlined />} loading={busy}>
          {percent !== null ? t('user.avatar.uploading', { percent }) : t('user.avatar.change')}
        </Button>
      </Upload>
      <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
        {t('user.avatar.hint')}
      </Typography.Text>
    </Flex>
  );
}
