import { ArrowLeftOutlined, PushpinOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Skeleton, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { RichHtml } from '@/components/rich-html';
import { formatDateTime } from '@/lib/format/relative-time';
import { useAfterRead, useLiveNotices, useNoticeDetail } from '../api/notice';

const LIST_PATH = '/notice/noticeIndex';

/** `/notice/detail?id=N`: one announcement, shown after DOMPurify; opening it reads it. */
export default function NoticeDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const raw = Number(search.get('id'));
  const id = Number.isSafeInteger(raw) && raw > 0 ? raw : 0;
  const detail = useNoticeDetail(id);
  const afterRead = useAfterRead();
  useLiveNotices();
  const loaded = detail.isSuccess;
  useEffect(() => {
    if (loaded) afterRead();
    // once per notice opened
    // eslint-disable-next-line react-hooks/exhaustive-deps -- afterRead is a new function each render
  }, [loaded, id]);

  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => void navigate(LIST_PATH)}>
      {t('notice.back')}
    </Button>
  );
  if (!id || detail.isError) {
    return (
      <Card variant="borderless">
        <Empty description={t('notice.gone')} data-testid="notice-gone">
          {back}
        </Empty>
      </Card>
    );
  }
  const n = detail.data;
  return (
    <Card variant="borderless">
      <Flex vertical gap={16} data-testid="notice-detail">
        <div>{back}</div>
        {!n ? (
          <Skeleton active />
        ) : (
          <>
            <Flex vertical gap={4}>
              <Flex gap={8} align="center" wrap>
                <Typography.Title level={3} style={{ margin: 0, overflowWrap: 'anywhere' }}>
                  {n.title}
                </Typography.Title>
                {n.pinned && (
                  <Tag icon={<PushpinOutlined />} color="blue">
                    {t('notice.pinned')}
                  </Tag>
                )}
              </Flex>
              <Typography.Text type="secondary">
                {t('notice.publishedAt', { time: formatDateTime(n.publishedAt) })}
                {n.endsAt ? ` · ${t('notice.endsAt', { time: formatDateTime(n.endsAt) })}` : ''}
              </Typography.Text>
            </Flex>
            {n.image && <img src={n.image} alt="" style={{ maxWidth: '100%', borderRadius: 8 }} />}
            <RichHtml html={n.notice} data-testid="notice-body-html" />
          </>
        )}
      </Flex>
    </Card>
  );
}
