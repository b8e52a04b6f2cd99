import { Progress, Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FileRequestItem } from '@cpc/contracts/file-acquisition';

const COLORS: Record<FileRequestItem['state'], string> = {
  waiting: 'default',
  delivered: 'processing',
  uploading: 'processing',
  ready: 'success',
  failed: 'error',
  expired: 'warning',
};

/** A request's state: a tag, the % while uploading, the reason of a failure in its tooltip. */
export function StateTag({ item }: { item: FileRequestItem }) {
  const { t } = useTranslation();
  if (item.state === 'uploading')
    return (
      <Tooltip title={t('fileAcquisition.state.uploading')}>
        <Progress
          percent={item.progress}
          size="small"
          style={{ minWidth: 100 }}
          data-testid={`file-progress-${item.id}`}
        />
      </Tooltip>
    );
  const tag = (
    <Tag color={COLORS[item.state]} data-testid={`file-state-${item.id}`}>
      {t(`fileAcquisition.state.${item.state}`)}
    </Tag>
  );
  return item.state === 'failed' && item.error ? <Tooltip title={item.error}>{tag}</Tooltip> : tag;
}
