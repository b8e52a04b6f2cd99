import { Flex, Form, InputNumber, Switch, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BootAnimationFormat, ProfileSettings } from '@cpc/contracts/system-custom';
import { formatSize } from '@/lib/format/size';
import { firstFrames } from '../../utils/zip-frames';
import { MediaUpload, type UploadedMedia } from '../media-upload';
import { ScreenFrame } from '../screen-frame';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['bootAnimation']>;
interface Values {
  key?: string;
  fps: number;
  loop: boolean;
  media?: Pick<UploadedMedia, 'url' | 'name' | 'size' | 'mime' | 'file'> & { frames?: number | null };
}

/** How many of a zip's first frames the preview plays. */
const PREVIEW_FRAMES = 48;

/** The upload route's limit for one file. */
const MAX_BYTES = 10 * 1024 * 1024;

/** Video, GIF or a zip of frames, by the type the server found in the bytes. */
export const formatOf = (mime: string): BootAnimationFormat =>
  mime.startsWith('video/') ? 'video' : mime === 'image/gif' ? 'gif' : 'frames';

function Preview({ media, loop, fps }: { media: NonNullable<Values['media']>; loop: boolean; fps: number }) {
  const format = formatOf(media.mime);
  if (format === 'video')
    return (
      <video
        src={media.url}
        controls
        muted
        loop={loop}
        playsInline
        data-testid="boot-video"
        style={{ width: '100%', height: '100%', objectFit: 'contain', background: '#000' }}
      />
    );
  if (format === 'gif')
    return (
      <img
        src={media.url}
        alt={media.name}
        data-testid="boot-gif"
        style={{ width: '100%', height: '100%', objectFit: 'contain', background: '#000' }}
      />
    );
  return <FramesPreview media={media} loop={loop} fps={fps} />;
}

/**
 * A zip of frames played as the terminal will: its first frames, read in the browser (from the file just picked,
 * else from the saved one's link), at the chosen rate; when they cannot be read, what is known about the zip.
 */
function FramesPreview({ media, loop, fps }: { media: NonNullable<Values['media']>; loop: boolean; fps: number }) {
  const { t } = useTranslation();
  const [urls, setUrls] = useState<string[] | null>(null);
  const [at, setAt] = useState(0);
  const source = media.file ?? media.url;
  useEffect(() => {
    let live = true;
    const made: string[] = [];
    (async () => {
      const buf =
        typeof source === 'string'
          ? await fetch(source).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(String(r.status)))))
          : await source.arrayBuffer();
      const frames = await firstFrames(buf, PREVIEW_FRAMES);
      if (!live) return;
      for (const f of frames) made.push(URL.createObjectURL(f));
      setAt(0);
      setUrls(made);
    })().catch(() => live && setUrls([]));
    return () => {
      live = false;
      made.forEach((u) => URL.revokeObjectURL(u));
    };
  }, [source]);
  useEffect(() => {
    if (!urls || urls.length < 2) return;
    const id = setInterval(
      () => setAt((n) => (n + 1 < urls.length ? n + 1 : loop ? 0 : n)),
      1000 / Math.min(60, Math.max(1, fps || 1)),
    );
    return () => clearInterval(id);
  }, [urls, fps, loop]);
  if (urls?.length)
    return (
      <Flex vertical style={{ height: '100%', background: '#000' }}>
        <img
          src={urls[Math.min(at, urls.length - 1)]}
          alt={t('systemCustom.boot.frameN', { n: at + 1 })}
          data-testid="boot-frames"
          style={{ flex: 1, minHeight: 0, width: '100%', objectFit: 'contain' }}
        />
        <Typography.Text style={{ color: '#fff', fontSize: 10, textAlign: 'center', padding: 2 }}>
          {t('systemCustom.boot.framePlaying', { n: Math.min(at, urls.length - 1) + 1, of: urls.length })}
        </Typography.Text>
      </Flex>
    );
  return (
    <Flex vertical align="center" justify="center" gap={4} style={{ height: '100%', padding: 12, textAlign: 'center' }}>
      <Typography.Text strong>{t('systemCustom.boot.framesZip')}</Typography.Text>
      <Typography.Text type="secondary">
        {media.frames ? t('systemCustom.boot.frames', { n: media.frames }) : t('systemCustom.boot.framesChecked')}
      </Typography.Text>
    </Flex>
  );
}

function Fields({ form, readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  const media = Form.useWatch('media', { form, preserve: true }) as Values['media'];
  const loop = (Form.useWatch('loop', form) as boolean | undefined) ?? true;
  const fps = (Form.useWatch('fps', form) as number | undefined) ?? 24;
  const frames = media ? formatOf(media.mime) === 'frames' : false;
  return (
    <Flex gap={24} wrap align="flex-start">
      <Flex vertical gap={12} style={{ flex: '1 1 280px', minWidth: 0 }}>
        <Form.Item label={t('systemCustom.boot.file')} required>
          <MediaUpload
            accept=".mp4,.webm,.gif,.zip"
            maxBytes={MAX_BYTES}
            hint={t('systemCustom.boot.hint', { max: formatSize(MAX_BYTES) })}
            disabled={readOnly}
            onUploaded={(m) => form.setFieldsValue({ key: m.key, media: { ...m, frames: null } })}
            testId="boot-upload"
          />
          <Form.Item name="key" noStyle rules={[{ required: true, message: t('systemCustom.boot.required') }]}>
            <input type="hidden" />
          </Form.Item>
        </Form.Item>
        {media && (
          <Typography.Text type="secondary" data-testid="boot-file">
            {t('systemCustom.media.file', { name: media.name, size: formatSize(media.size) })} ·{' '}
            {t(`systemCustom.boot.format.${formatOf(media.mime)}`)}
          </Typography.Text>
        )}
        <Flex gap={16} wrap>
          <Form.Item
            name="fps"
            label={t('systemCustom.boot.fps')}
            extra={frames ? undefined : t('systemCustom.boot.fpsFramesOnly')}
          >
            <InputNumber min={1} max={60} precision={0} style={{ width: 140 }} />
          </Form.Item>
          <Form.Item name="loop" label={t('systemCustom.boot.loop')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Flex>
      </Flex>
      <Flex vertical gap={8} align="center" style={{ flex: '0 1 220px', margin: '0 auto' }}>
        <ScreenFrame testId="boot-preview">
          {media ? (
            <Preview media={media} loop={loop} fps={fps} />
          ) : (
            <Flex align="center" justify="center" style={{ height: '100%', padding: 12, textAlign: 'center' }}>
              <Typography.Text type="secondary">{t('systemCustom.boot.none')}</Typography.Text>
            </Flex>
          )}
        </ScreenFrame>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('systemCustom.preview')}
        </Typography.Text>
      </Flex>
    </Flex>
  );
}

export const bootAnimationEditor: PartEditorDef<Out, Values, { key: string; fps: number; loop: boolean }> = {
  initial: (v) => ({
    key: v?.key,
    fps: v?.fps ?? 24,
    loop: v?.loop ?? true,
    media: v ? { url: v.url, name: v.originalName, size: v.size, mime: v.mime, frames: v.frames } : undefined,
  }),
  toInput: (v) => (v.key ? { key: v.key, fps: v.fps, loop: v.loop } : null),
  Fields,
};
