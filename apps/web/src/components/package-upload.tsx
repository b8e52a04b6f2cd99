import { InboxOutlined, PauseOutlined, CaretRightOutlined, CloseOutlined, ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Progress, Typography, Upload } from 'antd';
import type { PackageKind } from '@cpc/contracts';
import { PACKAGE_MAX_BYTES } from '@cpc/contracts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatSize } from '@/lib/format/size';
import { uploadPackage, type UploadedPackage, type UploadProgressInfo } from '@/lib/packages';

type Phase = 'idle' | 'uploading' | 'paused' | 'failed' | 'done';

/**
 * The package upload control (issue 15): a drop area that uploads one file in chunks, resumable (pause and resume,
 * a network cut or a page reload goes on where it stopped), with the SHA-256 computed in the browser on the way,
 * a progress bar with the speed, and `onUploaded` once every byte is on the server.
 */
export function PackageUpload({
  kind,
  accept,
  onUploaded,
  disabled,
}: {
  kind: PackageKind;
  /** What the file picker offers, e.g. ".apk". */
  accept?: string;
  onUploaded: (result: UploadedPackage) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [progress, setProgress] = useState<UploadProgressInfo | null>(null);
  const [error, setError] = useState('');
  /** Bytes the server already had when this attempt began (a resumed upload). */
  const [resumedAt, setResumedAt] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const done = useRef(onUploaded);
  done.current = onUploaded;
  useEffect(() => () => abort.current?.abort(), []);

  const run = (f: File) => {
    const controller = new AbortController();
    abort.current = controller;
    setPhase('uploading');
    setError('');
    let first = true;
    const onProgress = (p: UploadProgressInfo) => {
      if (first) setResumedAt(p.loaded);
      first = false;
      setProgress(p);
    };
    uploadPackage(f, { signal: controller.signal, onProgress }).then(
      (result) => {
        setPhase('done');
        done.current(result);
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        setPhase('failed');
        setError(t('packageUpload.failed', { reason: e instanceof Error ? e.message : String(e) }));
      },
    );
  };
  const pause = () => {
    abort.current?.abort();
    setPhase('paused');
  };
  const reset = () => {
    abort.current?.abort();
    setFile(null);
    setProgress(null);
    setPhase('idle');
    setError('');
  };

  const extensions = (accept ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const pick = (f: File) => {
    if (f.size > PACKAGE_MAX_BYTES) setError(t('packageUpload.tooLarge'));
    else if (extensions.length && !extensions.some((x) => f.name.toLowerCase().endsWith(x)))
      setError(t('packageUpload.wrongType'));
    else {
      setFile(f);
      setProgress({ loaded: 0, total: f.size, speed: 0 });
      run(f);
    }
    return false;
  };

  const percent = progress && progress.total ? Math.floor((progress.loaded / progress.total) * 100) : 0;
  return (
    <Flex vertical gap={12} data-kind={kind}>
      {!file && (
        <Upload.Dragger
          accept={accept}
          multiple={false}
          showUploadList={false}
          disabled={disabled}
          beforeUpload={pick}
          aria-label={t('packageUpload.hint')}
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined />
          </p>
          <p className="ant-upload-text">{t('packageUpload.hint')}</p>
          <p className="ant-upload-hint">{t('packageUpload.limit')}</p>
        </Upload.Dragger>
      )}
      {file && (
        <Flex vertical gap={4} style={{ minWidth: 0 }}>
          <Flex justify="space-between" gap={8} align="center">
            <Typography.Text strong ellipsis style={{ minWidth: 0 }}>
              {file.name}
            </Typography.Text>
            <Flex gap={4}>
              {phase === 'uploading' && (
                <Button size="small" icon={<PauseOutlined />} onClick={pause}>
                  {t('packageUpload.pause')}
                </Button>
              )}
              {(phase === 'paused' || phase === 'failed') && (
                <Button
                  size="small"
                  icon={phase === 'paused' ? <CaretRightOutlined /> : <ReloadOutlined />}
                  onClick={() => run(file)}
                >
                  {phase === 'paused' ? t('packageUpload.resume') : t('packageUpload.retry')}
                </Button>
              )}
              {phase !== 'done' && (
                <Button
                  size="small"
                  type="text"
                  icon={<CloseOutlined />}
                  aria-label={t('packageUpload.cancel')}
                  onClick={reset}
                />
              )}
            </Flex>
          </Flex>
          <Progress
            percent={percent}
            status={
              phase === 'failed' ? 'exception' : phase === 'done' ? 'success' : phase === 'paused' ? 'normal' : 'active'
            }
          />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('packageUpload.progress', {
              loaded: formatSize(progress?.loaded ?? 0),
              total: formatSize(file.size),
            })}
            {phase === 'uploading' && progress?.speed
              ? ` · ${t('packageUpload.speed', { speed: formatSize(progress.speed) })}`
              : ''}
            {phase === 'paused' ? ` · ${t('packageUpload.paused')}` : ''}
            {phase === 'done' ? ` · ${t('packageUpload.done')}` : ''}
            {resumedAt > 0 && phase === 'uploading'
              ? ` · ${t('packageUpload.resumed', { at: formatSize(resumedAt) })}`
              : ''}
          </Typography.Text>
        </Flex>
      )}
      {error && <Alert type="error" showIcon title={error} />}
    </Flex>
  );
}
