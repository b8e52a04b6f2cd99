import { act, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderPage } from '@/lib/testing/render-page';
import { RichHtml } from './rich-html';
import { RichTextEditor } from './rich-text-editor';

function Harness({ initial }: { initial: string }) {
  const [html, setHtml] = useState(initial);
  return (
    <>
      <RichTextEditor value={html} onChange={setHtml} aria-label="body" />
      <output data-testid="html">{html}</output>
      <button onClick={() => setHtml('<p>reset</p>')}>reset</button>
    </>
  );
}

describe('RichTextEditor', () => {
  it('shows the HTML it is given with its toolbar, and follows a value set from outside', async () => {
    renderPage(<Harness initial="<p>hello <strong>world</strong></p>" />);
    const box = await screen.findByRole('textbox', { name: 'body' });
    expect(box.querySelector('strong')?.textContent).toBe('world');
    expect(screen.getByRole('toolbar')).toBeTruthy();
    expect(screen.getByRole('button', { name: '加粗' })).toBeTruthy();
    await act(async () => screen.getByText('reset').click());
    expect(box.textContent).toBe('reset');
  });
});

describe('RichHtml', () => {
  it('shows formatting and never script', () => {
    renderPage(
      <RichHtml
        html={'<p><b>ok</b><img src=x onerror="window.__x=1"><script>window.__y=1</script></p>'}
        data-testid="h"
      />,
    );
    const el = screen.getByTestId('h');
    expect(el.querySelector('b')?.textContent).toBe('ok');
    expect(el.innerHTML).not.toContain('onerror');
    expect(el.innerHTML).not.toContain('script');
  });
});
