import { App, Button, Drawer, Form } from 'antd';
import { useState, type ReactNode } from 'react';
import type { PackageCreateBody, PackageKind } from '@cpc/contracts';
import { PackageUpload } from '@/components/package-upload';
import { useCreatePackage, type UploadedPackage } from '@/lib/packages';
import { useFormLanguage } from '@/lib/use-form-language';

/** The kinds described by a form (an APK describes itself). */
type DescribedKind = Exclude<PackageKind, 'app'>;
/** What a kind's form adds to the uploaded file: everything of the create call but the kind and the file. */
export type PackageDescription<K extends DescribedKind> = Omit<
  Extract<PackageCreateBody, { kind: K }>,
  'kind' | 'uploadId' | 'sha256'
>;

/**
 * The drawer that uploads a package (chunked, resumable, its SHA-256 checked by the server) and describes it: the
 * caller gives the kind's form items (firmware: product line and models; model: framework, inputs and outputs) and
 * the texts; the drawer creates the package once the file is in and the form is valid.
 */
export function PackageDrawer<K extends DescribedKind>({
  open,
  onClose,
  kind,
  accept,
  title,
  saveLabel,
  savedMessage,
  formName,
  initialValues,
  saveTestId,
  children,
}: {
  open: boolean;
  onClose: () => void;
  kind: K;
  accept: string;
  title: string;
  saveLabel: string;
  savedMessage: string;
  formName: string;
  initialValues: Partial<PackageDescription<K>>;
  saveTestId?: string;
  children: ReactNode;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<PackageDescription<K>>();
  useFormLanguage(form);
  const [uploaded, setUploaded] = useState<UploadedPackage | null>(null);
  const create = useCreatePackage();

  const save = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!v || !uploaded) return;
    try {
      await create.mutateAsync({
        ...v,
        kind,
        uploadId: uploaded.uploadId,
        sha256: uploaded.sha256,
      } as PackageCreateBody);
      message.success(savedMessage);
      form.resetFields();
      setUploaded(null);
      onClose();
    } catch (err) {
      message.error(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={title}
      size={520}
      destroyOnHidden
      extra={
        <Button type="primary" onClick={save} disabled={!uploaded} loading={create.isPending} data-testid={saveTestId}>
          {saveLabel}
        </Button>
      }
    >
      <PackageUpload kind={kind} accept={accept} onUploaded={setUploaded} />
      <Form<PackageDescription<K>>
        form={form}
        layout="vertical"
        name={formName}
        style={{ marginTop: 16 }}
        initialValues={initialValues}
      >
        {children}
      </Form>
    </Drawer>
  );
}
