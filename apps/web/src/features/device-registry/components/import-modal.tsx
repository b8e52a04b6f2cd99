import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Modal, Table, Typography, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ImportRowError, RegisteredDevice } from '@cpc/contracts/device-registry';
import { IMPORT_COLUMNS, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '@cpc/contracts/device-constants';
import { useImportDevices } from '../api/registry';
import { TEMPLATE_FILE_NAME, downloadText, templateCsv } from '../utils/csv';
import { importFailureOf, sayProblem, type ImportFailure } from '../utils/messages';

interface ImportModalProps {
  open: boolean;
  onClose: () => void;
  onImported: (devices: RegisteredDevice[]) => void;
}

const MAX_MB = IMPORT_MAX_BYTES / 1024 / 1024;

const fileUid = (f: File) => `csv-${f.name}-${f.size}-${f.lastModified}`;

/** Factory import from a CSV: all or nothing; a refused file comes back with every bad row named. */
export function ImportModal({ open, onClose, onImported }: ImportModalProps) {
  const { t } = useTranslation();
  const upload = useImportDevices();
  const [file, setFile] = useState<File | null>(null);
  const [failure, setFailure] = useState<ImportFailure | null>(null);

  useEffect(() => {
    if (open) {
      setFile(null);
      setFailure(null);
    }
  }, [open]);

  const choose = (f: File) => {
    setFailure(null);
    if (f.size > IMPORT_MAX_BYTES) {
      setFile(null);
      setFailure({ kind: 'file', message: t('deviceRegistry.message.tooLarge', { maxMb: MAX_MB }) });
    } else if (!/\.csv$/i.test(f.name) && !/csv|text\/plain/.test(f.type)) {
      setFile(null);
      setFailure({ kind: 'file', message: t('deviceRegistry.import.notCsv') });
    } else setFile(f);
    // never let antd upload by itself: the import is one call with the user's go
    return false;
  };

  const submit = async () => {
    if (!file) return;
    setFailure(null);
    try {
      const result = await upload.mutateAsync({ file, fileName: file.name });
      onImported(result.devices);
    } catch (err) {
      setFailure(importFailureOf(err, t));
    }
  };

  const columnLabel = (field: string) => (field === 'row' ? t('deviceRegistry.import.wholeRow') : field);

  return (
    <Modal
      open={open}
      title={t('deviceRegistry.import.title')}
      width={720}
      okText={t('deviceRegistry.import.submit')}
      okButtonProps={{ disabled: !file }}
      cancelText={t('deviceRegistry.cancel')}
      confirmLoading={upload.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
    >
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="center" gap={12} wrap>
          <Typography.Text type="secondary" style={{ flex: '1 1 320px' }}>
            {t('deviceRegistry.import.help', {
              columns: IMPORT_COLUMNS.join(','),
              maxRows: IMPORT_MAX_ROWS,
              maxMb: MAX_MB,
            })}
          </Typography.Text>
          <Button icon={<DownloadOutlined />} onClick={() => downloadText(TEMPLATE_FILE_NAME, templateCsv())}>
            {t('deviceRegistry.import.template')}
          </Button>
        </Flex>
        <Upload.Dragger
          accept=".csv,text/csv"
          maxCount={1}
          multiple={false}
          beforeUpload={choose}
          fileList={file ? [{ uid: fileUid(file), name: file.name, status: 'done', size: file.size }] : []}
          // only the file on show: a replaced one (maxCount 1) must not take the new choice with it
          onRemove={(removed) => {
            if (!file || removed.uid !== fileUid(file)) return;
            setFile(null);
            setFailure(null);
          }}
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined />
          </p>
          <p className="ant-upload-text">{t('deviceRegistry.import.drop')}</p>
          <p className="ant-upload-hint">{t('deviceRegistry.import.dropHint')}</p>
        </Upload.Dragger>
        {failure?.kind === 'file' && (
          <Alert
            type="error"
            showIcon
            title={t('deviceRegistry.import.failed')}
            description={failure.message}
            data-testid="import-file-error"
          />
        )}
        {failure?.kind === 'rows' && (
          <Flex vertical gap={8} data-testid="import-row-errors">
            <Alert
              type="error"
              showIcon
              title={t('deviceRegistry.import.rowsFailed', {
                n: failure.rows.length,
                rows: new Set(failure.rows.map((r) => r.row)).size,
              })}
            />
            <Table<ImportRowError & { id: number }>
              size="small"
              rowKey="id"
              dataSource={failure.rows.map((r, i) => ({ ...r, id: i }))}
              pagination={failure.rows.length > 8 ? { pageSize: 8, showSizeChanger: false } : false}
              columns={[
                { key: 'row', dataIndex: 'row', title: t('deviceRegistry.import.row'), width: 80 },
                {
                  key: 'field',
                  dataIndex: 'field',
                  title: t('deviceRegistry.import.field'),
                  width: 120,
                  render: (v: string) => <Typography.Text code>{columnLabel(v)}</Typography.Text>,
                },
                {
                  key: 'message',
                  dataIndex: 'message',
                  title: t('deviceRegistry.import.problem'),
                  render: (_: string, r: ImportRowError) => sayProblem(r, t),
                },
              ]}
            />
          </Flex>
        )}
      </Flex>
    </Modal>
  );
}
