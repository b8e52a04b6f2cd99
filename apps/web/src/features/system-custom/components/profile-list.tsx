import { PlusOutlined } from '@ant-design/icons';
import { Badge, Button, Card, Empty, Flex, Input, Pagination, Spin, Tag, Tooltip, Typography, theme } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { ProfileItem, SystemCustomPart } from '@cpc/contracts/system-custom';
import { usePermission } from '@/lib/session';
import { useDebounced } from '@/lib/use-debounced';
import { useProfiles } from '../api/system-custom';
import { ProfileFormModal } from './profile-form-modal';

const PAGE_SIZE = 20;

/**
 * The customer's profiles: search, "only those that set this page's part", a new one; each row says its version,
 * unpublished edits, and how its devices stand (applied of governed, failed, drifted).
 */
export function ProfileList({
  part,
  selected,
  onSelect,
}: {
  part: SystemCustomPart;
  selected: number;
  onSelect: (id: number) => void;
}) {
  const { t } = useTranslation();
  const canEdit = usePermission(PERMISSIONS.systemCustomEdit);
  const [keyword, setKeyword] = useState('');
  const [onlyPart, setOnlyPart] = useState(false);
  const [pageNo, setPageNo] = useState(1);
  const [creating, setCreating] = useState(false);
  const list = useProfiles({
    pageNo,
    pageSize: PAGE_SIZE,
    keyword: useDebounced(keyword, 300),
    part: onlyPart ? part : undefined,
  });

  return (
    <Card
      variant="borderless"
      title={t('systemCustom.list.title')}
      extra={
        canEdit && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="profile-new">
            {t('systemCustom.list.new')}
          </Button>
        )
      }
      styles={{ body: { paddingTop: 12 } }}
    >
      <Flex vertical gap={12}>
        <Input.Search
          allowClear
          placeholder={t('systemCustom.list.search')}
          value={keyword}
          onChange={(e) => {
            setKeyword(e.target.value);
            setPageNo(1);
          }}
        />
        <Tag.CheckableTag
          checked={onlyPart}
          onChange={(v) => {
            setOnlyPart(v);
            setPageNo(1);
          }}
          style={{ alignSelf: 'flex-start' }}
        >
          {t('systemCustom.list.onlyPart', { part: t(`systemCustom.part.${part}`) })}
        </Tag.CheckableTag>
        <Spin spinning={list.isFetching && !list.data}>
          <Flex vertical gap={4} data-testid="profile-list" role="list">
            {!list.isLoading && !list.data?.list.length && (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('systemCustom.list.empty')} />
            )}
            {(list.data?.list ?? []).map((p) => (
              <ProfileRow
                key={p.id}
                profile={p}
                part={part}
                active={p.id === selected}
                onClick={() => onSelect(p.id)}
              />
            ))}
          </Flex>
        </Spin>
        {(list.data?.total ?? 0) > PAGE_SIZE && (
          <Pagination
            size="small"
            simple
            current={pageNo}
            pageSize={PAGE_SIZE}
            total={list.data?.total ?? 0}
            onChange={setPageNo}
            style={{ alignSelf: 'center' }}
          />
        )}
      </Flex>
      <ProfileFormModal
        open={creating}
        onClose={() => setCreating(false)}
        onSaved={(id) => {
          setCreating(false);
          onSelect(id);
        }}
      />
    </Card>
  );
}

function ProfileRow({
  profile: p,
  part,
  active,
  onClick,
}: {
  profile: ProfileItem;
  part: SystemCustomPart;
  active: boolean;
  onClick: () => void;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <div
      role="listitem"
      tabIndex={0}
      aria-current={active || undefined}
      onClick={onClick}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onClick();
        }
      }}
      data-testid="profile-item"
      data-profile-id={p.id}
      style={{
        cursor: 'pointer',
        padding: '8px 12px',
        borderRadius: token.borderRadius,
        border: `1px solid ${active ? token.colorPrimaryBorder : token.colorBorderSecondary}`,
        background: active ? token.controlItemBgActive : undefined,
      }}
    >
      <Flex vertical gap={4} style={{ minWidth: 0 }}>
        <Flex justify="space-between" gap={8} align="center">
          <Typography.Text strong ellipsis style={{ minWidth: 0 }}>
            {p.name}
          </Typography.Text>
          <Flex gap={4} style={{ flex: 'none' }}>
            {p.version ? (
              <Tag color="blue">{t('systemCustom.version.n', { n: p.version })}</Tag>
            ) : (
              <Tag>{t('systemCustom.version.never')}</Tag>
            )}
            {p.hasDraft && (
              <Tooltip title={t('systemCustom.version.draftHint')}>
                <Tag color="gold">{t('systemCustom.version.draft')}</Tag>
              </Tooltip>
            )}
          </Flex>
        </Flex>
        <Flex gap={12} wrap>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('systemCustom.list.applied', { applied: p.applied, devices: p.devices })}
          </Typography.Text>
          {p.failed > 0 && (
            <Badge status="error" text={<small>{t('systemCustom.list.failed', { n: p.failed })}</small>} />
          )}
          {p.drifted > 0 && (
            <Badge status="warning" text={<small>{t('systemCustom.list.drifted', { n: p.drifted })}</small>} />
          )}
          {/* `parts` are the published version's: a draft may set the part already */}
          {!p.hasDraft && !p.parts.includes(part) && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('systemCustom.list.partUnset', { part: t(`systemCustom.part.${part}`) })}
            </Typography.Text>
          )}
        </Flex>
      </Flex>
    </div>
  );
}
