import type { CommandMsg } from '@cpc/contracts/device-protocol';
import { chance, type Rng } from './random.ts';

/**
 * How a simulated terminal shows a push (issue 16, docs/device-protocol.md): the device acks the `push_message`
 * command (done by device.ts), "displays" it (a screen notice for its `noticeSeconds`, a text, an image, a link)
 * and reports the `result` ok — the push is `displayed`; then, at `clickRate`, a user taps it after `clickDelayMs`:
 * an `event` with kind `push.clicked` and data {taskId, pushId}. Tests click a given push with `click(pushId)`.
 */
export interface PushSimOptions {
  /** Share (0–1) of shown pushes a user taps (default 0). */
  clickRate?: number;
  /** How long after the display the tap comes (default 500 ms). */
  clickDelayMs?: number;
}

/** A push on the simulated screen. */
export interface ShownPush {
  taskId: string;
  pushId: number;
  kind: string;
  title: string;
  body: string;
  imageUrl?: string;
  link?: string;
  noticeSeconds?: number;
  at: number;
  clicked: boolean;
}

/** What the push display needs of its device. */
export interface PushHost {
  readonly sn: string;
  publishUp(kind: 'progress' | 'result' | 'event', body: Record<string, unknown>): Promise<void>;
  /** Records the outcome so a repeat of the command is answered with it. */
  done(id: string, ok: boolean, error?: string): void;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export class PushScreen {
  /** Every push shown, oldest first (a repeat of a command is not shown again: device.ts answers it). */
  readonly shown: ShownPush[] = [];

  constructor(
    private host: PushHost,
    private opts: PushSimOptions,
    private rng: Rng,
  ) {}

  /** Shows the push of a `push_message` command and reports it displayed; maybe a user taps it later. */
  async show(m: CommandMsg): Promise<void> {
    const p = m.params as Record<string, unknown>;
    if (typeof p.title !== 'string' || typeof p.pushId !== 'number') {
      this.host.done(m.id, false, 'not a push');
      await this.host.publishUp('result', { id: m.id, ok: false, error: 'not a push' });
      return;
    }
    const shown: ShownPush = {
      taskId: m.id,
      pushId: p.pushId,
      kind: str(p.kind) ?? 'text',
      title: p.title,
      body: str(p.body) ?? '',
      imageUrl: str(p.imageUrl),
      link: str(p.link),
      noticeSeconds: typeof p.noticeSeconds === 'number' ? p.noticeSeconds : undefined,
      at: Date.now(),
      clicked: false,
    };
    this.shown.push(shown);
    if (this.shown.length > 500) this.shown.shift();
    this.host.done(m.id, true);
    await this.host.publishUp('result', { id: m.id, ok: true, data: { displayed: true } });
    if (chance(this.rng, this.opts.clickRate ?? 0))
      setTimeout(() => void this.tap(shown), this.opts.clickDelayMs ?? 500);
  }

  /** A user taps the newest shown push (of `pushId` when given); false when there is none. */
  async click(pushId?: number): Promise<boolean> {
    const s = [...this.shown].reverse().find((x) => pushId == null || x.pushId === pushId);
    if (!s) return false;
    await this.tap(s);
    return true;
  }

  private async tap(s: ShownPush): Promise<void> {
    if (s.clicked) return;
    s.clicked = true;
    await this.host.publishUp('event', {
      ts: Date.now(),
      kind: 'push.clicked',
      data: { taskId: s.taskId, pushId: s.pushId },
    });
  }
}
