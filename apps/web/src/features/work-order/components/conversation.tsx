import { Avatar, Flex, Rate, Tag, Tooltip, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkOrderEvent, WorkOrderSide } from '@cpc/contracts/work-order';
import { RichHtml } from '@/components/rich-html';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { getLanguage } from '@/lib/i18n';
import { AttachmentList } from './attachments';

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** What a small timeline line says: a state change, an assignment, an edit or a rating. */
function useLineText() {
  const { t } = useTranslation();
  return (e: WorkOrderEvent): string => {
    const who = e.author?.name ?? t(`workOrder.side.${e.side}`);
    if (e.kind === 'state' && !e.fromState) return t('workOrder.timeline.opened', { who });
    if (e.kind === 'state')
      return t('workOrder.timeline.state', {
        who,
        from: e.fromState ? t(`workOrder.state.${e.fromState}`) : '–',
        to: e.toState ? t(`workOrder.state.${e.toState}`) : '–',
      });
    if (e.kind === 'assign') {
      const name = str(e.data.assigneeName);
      return name ? t('workOrder.timeline.assign', { who, name }) : t('workOrder.timeline.unassign', { who });
    }
    if (e.kind === 'edit') return t('workOrder.timeline.edit', { who });
    return t('workOrder.timeline.rating', { who });
  };
}

/**
 * The timeline as a conversation: replies as bubbles (the viewer's side on the right), internal notes marked as
 * such (only staff receive them), state changes, assignments, edits and the rating as small lines between them.
 */
export function Conversation({
  events,
  viewerSide,
  now,
}: {
  events: WorkOrderEvent[];
  viewerSide: WorkOrderSide;
  now: number;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const lineText = useLineText();

  if (!events.length) return <Typography.Text type="secondary">{t('workOrder.timeline.empty')}</Typography.Text>;

  return (
    <Flex vertical gap={12} data-testid="work-order-timeline">
      {events.map((e) => {
        const when = (
          <Tooltip title={formatDateTime(e.createdAt)}>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {formatRelativeTime(e.createdAt, getLanguage(), now)}
            </Typography.Text>
          </Tooltip>
        );
        if (e.kind === 'reply' || e.kind === 'note') {
          const mine = e.side === viewerSide;
          const note = e.kind === 'note';
          const name = e.author?.name ?? t(`workOrder.side.${e.side}`);
          return (
            <Flex
              key={e.id}
              gap={8}
              justify={mine ? 'end' : 'start'}
              style={{ flexDirection: mine ? 'row-reverse' : 'row' }}
              data-testid={note ? 'work-order-note' : 'work-order-reply'}
              data-side={e.side}
            >
              <Avatar
                style={{ flex: 'none', background: e.side === 'staff' ? token.colorPrimary : token.colorTextTertiary }}
              >
                {name.slice(0, 1).toUpperCase()}
              </Avatar>
              <div
                style={{
                  maxWidth: 'min(640px, calc(100% - 48px))',
                  minWidth: 0,
                  padding: '8px 12px',
                  borderRadius: token.borderRadiusLG,
                  background: note ? token.colorWarningBg : mine ? token.colorPrimaryBg : token.colorFillQuaternary,
                  border: `1px ${note ? 'dashed' : 'solid'} ${note ? token.colorWarningBorder : token.colorBorderSecondary}`,
                }}
              >
                <Flex gap={8} align="center" wrap style={{ marginBottom: 4 }}>
                  <Typography.Text strong>{name}</Typography.Text>
                  <Tag color={e.side === 'staff' ? 'blue' : 'default'} style={{ marginInlineEnd: 0 }}>
                    {t(`workOrder.side.${e.side}`)}
                  </Tag>
                  {e.data.action === 'ask' && (
                    <Tag color="orange" style={{ marginInlineEnd: 0 }} data-testid="work-order-question-tag">
                      {t('workOrder.timeline.question')}
                    </Tag>
                  )}
                  {note && (
                    <Tag color="warning" style={{ marginInlineEnd: 0 }} data-testid="work-order-note-tag">
                      {t('workOrder.timeline.internal')}
                    </Tag>
                  )}
                  {when}
                </Flex>
                <RichHtml html={e.bodyHtml} />
                <AttachmentList items={e.attachments} />
              </div>
            </Flex>
          );
        }
        const rating = e.kind === 'rating' ? Number(e.data.rating) || 0 : 0;
        return (
          <Flex key={e.id} justify="center" data-testid={`work-order-line-${e.kind}`}>
            <Flex
              vertical
              align="center"
              style={{ padding: '2px 12px', borderRadius: 12, background: token.colorFillQuaternary, maxWidth: '100%' }}
            >
              <Typography.Text type="secondary" style={{ fontSize: 12, textAlign: 'center' }}>
                {lineText(e)} · {formatRelativeTime(e.createdAt, getLanguage(), now)}
              </Typography.Text>
              {e.kind === 'rating' && (
                <>
                  <Rate disabled value={rating} style={{ fontSize: 14 }} />
                  {str(e.data.comment) && (
                    <Typography.Text style={{ fontSize: 12 }}>{str(e.data.comment)}</Typography.Text>
                  )}
                </>
              )}
            </Flex>
          </Flex>
        );
      })}
    </Flex>
  );
}
