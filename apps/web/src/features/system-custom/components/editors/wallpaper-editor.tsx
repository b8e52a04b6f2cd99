import { Flex, Form, Radio, Typography } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { WALLPAPER_FITS, WALLPAPER_MAX_BYTES } from '@cpc/contracts/system-custom';
import type { ProfileSettings } from '@cpc/contracts/system-custom';
import { formatSize } from '@/lib/format/size';
import { MediaUpload, type UploadedMedia } from '../media-upload';
import { ScreenFrame } from '../screen-frame';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['wallpaper']>;
type Fit = (typeof WALLPAPER_FITS)[number];
interface Values {
  key?: string;
  fit: Fit;
  /** The image shown in the preview: the new upload, else the saved one. */
  media?: Pick<UploadedMedia, 'url' | 'name' | 'size'>;
}

/** How each fit mode lays the image on the screen (the preview's CSS). */
export const FIT_STYLES: Record<Fit, CSSProperties> = {
  fill: { backgroundSize: 'cover', backgroundPosition: 'center', backgroundRepeat: 'no-repeat' },
  fit: { backgroundSize: 'contain', backgroundPosition: 'center', backgroundRepeat: 'no-repeat' },
  stretch: { backgroundSize: '100% 100%', backgroundRepeat: 'no-repeat' },
  center: { backgroundSize: 'auto', backgroundPosition: 'center', backgroundRepeat: 'no-repeat' },
  tile: { backgroundSize: 'auto', backgroundRepeat: 'repeat' },
};

function Fields({ form, value, readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  const media = Form.useWatch('media', { form, preserve: true }) as Values['media'];
  const fit = (Form.useWatch('fit', form) as Fit | undefined) ?? 'fill';
  const picked = (m: UploadedMedia) => form.setFieldsValue({ key: m.key, media: m });
  return (
    <Flex gap={24} wrap align="flex-start">
      <Flex vertical gap={12} style={{ flex: '1 1 280px', minWidth: 0 }}>
        <Form.Item label={t('systemCustom.wallpaper.image')} required>
          <MediaUpload
            accept=".jpg,.jpeg,.png,.webp"
            maxBytes={WALLPAPER_MAX_BYTES}
            hint={t('systemCustom.wallpaper.hint', { max: formatSize(WALLPAPER_MAX_BYTES) })}
            disabled={readOnly}
            onUploaded={picked}
            testId="wallpaper-upload"
          />
          <Form.Item name="key" noStyle rules={[{ required: true, message: t('systemCustom.wallpaper.required') }]}>
            <input type="hidden" />
          </Form.Item>
        </Form.Item>
        {media && (
          <Typography.Text type="secondary" data-testid="wallpaper-file">
            {t('systemCustom.media.file', { name: media.name, size: formatSize(media.size) })}
            {value && media.url === value.url ? ` · ${value.width}×${value.height}` : ''}
          </Typography.Text>
        )}
        <Form.Item name="fit" label={t('systemCustom.wallpaper.fit')}>
          <Radio.Group
            optionType="button"
            options={WALLPAPER_FITS.map((f) => ({ value: f, label: t(`systemCustom.wallpaper.fits.${f}`) }))}
          />
        </Form.Item>
      </Flex>
      <Flex vertical gap={8} align="center" style={{ flex: '0 1 220px', margin: '0 auto' }}>
        <ScreenFrame
          testId="wallpaper-preview"
          background={media ? { backgroundImage: `url("${media.url}")`, ...FIT_STYLES[fit] } : undefined}
        >
          {!media && (
            <Flex align="center" justify="center" style={{ height: '100%', padding: 12, textAlign: 'center' }}>
              <Typography.Text type="secondary">{t('systemCustom.wallpaper.none')}</Typography.Text>
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

export const wallpaperEditor: PartEditorDef<Out, Values, { key: string; fit: Fit }> = {
  initial: (v) => ({
    key: v?.key,
    fit: v?.fit ?? 'fill',
    media: v ? { url: v.url, name: v.originalName, size: v.size } : undefined,
  }),
  toInput: (v) => (v.key ? { key: v.key, fit: v.fit } : null),
  Fields,
};
