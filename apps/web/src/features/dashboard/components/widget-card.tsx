import { Card, Empty } from 'antd';
import type { ReactNode } from 'react';

interface WidgetCardProps {
  title: ReactNode;
  extra?: ReactNode;
  /** Shows a skeleton while the first answer is on its way. */
  loading?: boolean;
  /** Replaces the content with this explanation (the widget has nothing to show). */
  empty?: ReactNode;
  testId: string;
  children?: ReactNode;
}

/** The frame every dashboard widget shares: same card, same skeleton, same empty state. */
export function WidgetCard({ title, extra, loading, empty, testId, children }: WidgetCardProps) {
  return (
    <Card
      variant="borderless"
      title={title}
      extra={extra}
      loading={loading}
      data-testid={testId}
      style={{ height: '100%' }}
      styles={{ body: { paddingTop: 12 } }}
    >
      {empty ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} style={{ margin: '32px 0' }} />
      ) : (
        children
      )}
    </Card>
  );
}
