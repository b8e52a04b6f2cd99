import { IdcardOutlined, SafetyOutlined } from '@ant-design/icons';
import { Alert, Button, Col, Flex, Form, Input, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AccountType, IdentityBody } from '@cpc/contracts';
import { useSubmitAuthentication } from '../api/authenticate';
import { toFormFieldErrors } from '../utils/field-errors';
import { checks, checkUploaded, toRule } from '../utils/rules';
import type { IdentityFormValues, ImageField } from '../utils/submission';
import { ImageUpload } from './image-upload';
import { useFormLanguage } from '@/lib/use-form-language';

interface IdentityFormProps {
  type: AccountType;
  initialValues?: IdentityFormValues;
  previews?: Partial<Record<ImageField, string>>;
  /** Shown when the form replaces a result (re-authentication): goes back to it. */
  onCancel?: () => void;
}

const FIELDS = [
  'realName',
  'idNumber',
  'idFrontKey',
  'idBackKey',
  'companyName',
  'creditCode',
  'legalPerson',
  'licenceKey',
] as const;

const trim = (v: string | undefined) => (v ?? '').trim();

/** The identity authentication form of DESIGN §3, individual or enterprise by the tenant's type. */
export function IdentityForm({ type, initialValues, previews = {}, onCancel }: IdentityFormProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<IdentityFormValues>();
  useFormLanguage(form);
  const submit = useSubmitAuthentication();

  const onFinish = async (v: IdentityFormValues) => {
    const body: IdentityBody =
      type === 'individual'
        ? {
            type,
            realName: trim(v.realName),
            idNumber: trim(v.idNumber).toUpperCase(),
            idFrontKey: v.idFrontKey ?? '',
            idBackKey: v.idBackKey ?? '',
          }
        : {
            type,
            companyName: trim(v.companyName),
            creditCode: trim(v.creditCode).toUpperCase(),
            legalPerson: trim(v.legalPerson),
            licenceKey: v.licenceKey ?? '',
          };
    try {
      await submit.mutateAsync(body);
    } catch (err) {
      const errors = toFormFieldErrors(err, FIELDS, t);
      if (errors.length) form.setFields(errors);
    }
  };

  const photosRequired = 'auth.validation.idPhotosRequired';

  return (
    <Form<IdentityFormValues>
      form={form}
      layout="vertical"
      initialValues={initialValues}
      onFinish={onFinish}
      scrollToFirstError
      requiredMark
    >
      {type === 'individual' ? (
        <>
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item
                name="realName"
                label={t('auth.authenticate.form.realName')}
                required
                rules={[toRule(checks.realName, t)]}
              >
                <Input
                  placeholder={t('auth.authenticate.form.realNamePlaceholder')}
                  maxLength={30}
                  autoComplete="name"
                />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                name="idNumber"
                label={t('auth.authenticate.form.idNumber')}
                required
                rules={[toRule(checks.idNumber, t)]}
              >
                <Input
                  prefix={<IdcardOutlined />}
                  placeholder={t('auth.authenticate.form.idNumberPlaceholder')}
                  maxLength={18}
                  autoComplete="off"
                />
              </Form.Item>
            </Col>
          </Row>
          {/* one message for both sides: the back only complains once the front is there */}
          <Form.Item label={t('auth.authenticate.form.idPhotos')} required style={{ marginBottom: 0 }}>
            <Row gutter={16}>
              <Col xs={24} sm={12}>
                <Form.Item name="idFrontKey" rules={[toRule(checkUploaded(photosRequired), t)]}>
                  <ImageUpload title={t('auth.authenticate.form.idFront')} initialPreview={previews.idFrontKey} />
                </Form.Item>
              </Col>
              <Col xs={24} sm={12}>
                <Form.Item
                  name="idBackKey"
                  dependencies={['idFrontKey']}
                  rules={[
                    ({ getFieldValue }) =>
                      toRule((v) => (getFieldValue('idFrontKey') ? checkUploaded(photosRequired)(v) : null), t),
                  ]}
                >
                  <ImageUpload title={t('auth.authenticate.form.idBack')} initialPreview={previews.idBackKey} />
                </Form.Item>
              </Col>
            </Row>
          </Form.Item>
        </>
      ) : (
        <>
          <Form.Item
            name="companyName"
            label={t('auth.authenticate.form.companyName')}
            required
            rules={[toRule(checks.companyName, t)]}
          >
            <Input
              placeholder={t('auth.authenticate.form.companyNamePlaceholder')}
              maxLength={100}
              autoComplete="organization"
            />
          </Form.Item>
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item
                name="creditCode"
                label={t('auth.authenticate.form.creditCode')}
                required
                rules={[toRule(checks.creditCode, t)]}
              >
                <Input
                  placeholder={t('auth.authenticate.form.creditCodePlaceholder')}
                  maxLength={18}
                  autoComplete="off"
                />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                name="legalPerson"
                label={t('auth.authenticate.form.legalPerson')}
                required
                rules={[toRule(checks.legalPerson, t)]}
              >
                <Input placeholder={t('auth.authenticate.form.legalPersonPlaceholder')} maxLength={30} />
              </Form.Item>
            </Col>
          </Row>
          <Row gutter={16}>
            <Col xs={24} sm={12}>
              <Form.Item
                name="licenceKey"
                label={t('auth.authenticate.form.licence')}
                required
                rules={[toRule(checkUploaded('auth.validation.licenceRequired'), t)]}
              >
                <ImageUpload title={t('auth.authenticate.form.licenceImage')} initialPreview={previews.licenceKey} />
              </Form.Item>
            </Col>
          </Row>
        </>
      )}

      <Alert
        type="info"
        showIcon
        icon={<SafetyOutlined />}
        title={t('auth.authenticate.form.privacy')}
        style={{ marginBottom: 24 }}
      />

      <Flex gap={12} justify="flex-end" wrap>
        {onCancel && <Button onClick={onCancel}>{t('auth.authenticate.form.cancel')}</Button>}
        <Button type="primary" htmlType="submit" loading={submit.isPending}>
          {t('auth.authenticate.form.submit')}
        </Button>
      </Flex>
    </Form>
  );
}
