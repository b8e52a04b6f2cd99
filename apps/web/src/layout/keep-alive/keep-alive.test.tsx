import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { useErrorLog } from '../../lib/error-log';
import { useSession } from '../../lib/session';
import { staff } from '../../lib/testing/fixtures';
import { keptPageShown } from '../../lib/testing/kept-pages';
import { COOL_DELAY, KeepAlive, WARM_TIME, type KeptPage } from './keep-alive';

afterEach(cleanup);

/** A page with state a user would notice losing: what they typed. */
function Form({ name }: { name: string }) {
  const [text, setText] = useState('');
  return <input aria-label={name} value={text} onChange={(e) => setText(e.target.value)} />;
}

const page = (id: string, active: boolean): KeptPage => ({
  id,
  fullPath: `/${id.split('#')[0]}`,
  active,
  element: <Form name={id.split('#')[0]} />,
});

function Harness({ pages }: { pages: KeptPage[] }) {
  return <KeepAlive pages={pages} />;
}

const wrapper = (path: string) => document.querySelector<HTMLElement>(`[data-page-path="${path}"]`);
const visible = (path: string) => keptPageShown(path) === true;

describe('KeepAlive', () => {
  it('keeps a page and what was typed in it while another is on screen', async () => {
    const { rerender } = render(<Harness pages={[page('a#0', true)]} />);
    const input = screen.getByLabelText('a');
    fireEvent.change(input, { target: { value: 'typed' } });

    await act(async () => rerender(<Harness pages={[page('a#0', false), page('b#0', true)]} />));
    expect(visible('/a')).toBe(false);
    expect(visible('/b')).toBe(true);

    await act(async () => rerender(<Harness pages={[page('a#0', true), page('b#0', false)]} />));
    expect(visible('/a')).toBe(true);
    expect(visible('/b')).toBe(false);
    expect(screen.getByLabelText<HTMLInputElement>('a').value).toBe('typed');
    // the very same element: nothing was mounted anew
    expect(screen.getByLabelText('a')).toBe(input);
  });

  it('keeps the last pages live behind the active one, and pauses the others: their effects stop', async () => {
    vi.useFakeTimers();
    try {
      const live = new Set<string>();
      function Polling({ name }: { name: string }) {
        useEffect(() => {
          live.add(name);
          return () => void live.delete(name);
        }, [name]);
        return <span>{name}</span>;
      }
      const kept = (name: string, active: boolean, warm = false): KeptPage => ({
        id: `${name}#0`,
        fullPath: `/${name}`,
        active,
        warm,
        element: <Polling name={name} />,
      });
      const { rerender } = render(<Harness pages={[kept('a', true), kept('b', false)]} />);
      await act(async () => rerender(<Harness pages={[kept('a', false, true), kept('b', false), kept('c', true)]} />));
      await act(async () => vi.advanceTimersByTime(COOL_DELAY + 10));
      // a was just left (warm): still live; b is paused
      expect([...live].sort()).toEqual(['a', 'c']);
      expect(visible('/a')).toBe(false);
      await act(async () => vi.advanceTimersByTime(WARM_TIME));
      expect([...live]).toEqual(['c']);
      // showing a paused page runs its effects again
      await act(async () => rerender(<Harness pages={[kept('a', false), kept('b', true), kept('c', false, true)]} />));
      expect([...live].sort()).toEqual(['b', 'c']);
      expect(visible('/b')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a page that leaves the list: it comes back empty', async () => {
    const { rerender } = render(<Harness pages={[page('a#0', true)]} />);
    fireEvent.change(screen.getByLabelText('a'), { target: { value: 'typed' } });
    await act(async () => rerender(<Harness pages={[page('b#0', true)]} />));
    expect(wrapper('/a')).toBeNull();
    await act(async () => rerender(<Harness pages={[page('a#0', true), page('b#0', false)]} />));
    expect(screen.getByLabelText<HTMLInputElement>('a').value).toBe('');
  });

  it('mounts a page anew under a new id (a refresh)', async () => {
    const { rerender } = render(<Harness pages={[page('a#0', true)]} />);
    fireEvent.change(screen.getByLabelText('a'), { target: { value: 'typed' } });
    await act(async () => rerender(<Harness pages={[page('a#1', true)]} />));
    expect(screen.getByLabelText<HTMLInputElement>('a').value).toBe('');
  });

  it('scrolls the page area back to where each page was left, and a new page to the top', async () => {
    const scroller = document.scrollingElement ?? document.documentElement;
    const { rerender } = render(<Harness pages={[page('a#0', true)]} />);
    scroller.scrollTop = 420;
    fireEvent.scroll(document);

    await act(async () => rerender(<Harness pages={[page('a#0', false), page('b#0', true)]} />));
    expect(scroller.scrollTop).toBe(0);
    scroller.scrollTop = 90;
    fireEvent.scroll(document);

    await act(async () => rerender(<Harness pages={[page('a#0', true), page('b#0', false)]} />));
    expect(scroller.scrollTop).toBe(420);
    await act(async () => rerender(<Harness pages={[page('a#0', false), page('b#0', true)]} />));
    expect(scroller.scrollTop).toBe(90);
  });

  it('keeps a page that throws to its own tab: the other pages stay, the error is logged, and the page can try again', async () => {
    // the error log is staff's
    useSession.getState().setUserInfo(staff());
    useErrorLog.getState().clear();
    let broken = true;
    function Fragile() {
      if (broken) throw new Error('page blew up');
      return <span>recovered</span>;
    }
    // React reports the caught error on the console as well
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { rerender } = render(<Harness pages={[page('a#0', true)]} />);
      fireEvent.change(screen.getByLabelText('a'), { target: { value: 'kept' } });
      await act(async () =>
        rerender(
          <Harness pages={[page('a#0', false), { id: 'x#0', fullPath: '/x', active: true, element: <Fragile /> }]} />,
        ),
      );
      const alert = screen.getByRole('alert');
      expect(alert.textContent).toContain('页面出错了');
      expect(wrapper('/x')?.contains(alert)).toBe(true);
      expect(useErrorLog.getState().logs.map((l) => l.err.message)).toContain('page blew up');
      // the other page and what was typed in it are untouched
      expect(screen.getByLabelText<HTMLInputElement>('a').value).toBe('kept');

      broken = false;
      await act(async () => fireEvent.click(screen.getByRole('button', { name: /重\s*试/ })));
      expect(screen.getByText('recovered')).toBeTruthy();
      expect(screen.queryByRole('alert')).toBeNull();
    } finally {
      quiet.mockRestore();
    }
  });
});
