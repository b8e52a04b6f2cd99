import { useMemo } from 'react';
import { sanitizeHtml } from '@/lib/sanitize-html';
import './rich-text.css';

/**
 * Rich text from the server (work orders, replies, announcements), shown after a second sanitising pass with
 * DOMPurify: the server sanitised it when it was saved, this keeps a row written around the server harmless.
 */
export function RichHtml({ html, 'data-testid': testId }: { html: string; 'data-testid'?: string }) {
  const clean = useMemo(() => sanitizeHtml(html), [html]);
  return <div className="cpc-rich-html" data-testid={testId} dangerouslySetInnerHTML={{ __html: clean }} />;
}
