import type { CommandType } from '@cpc/contracts';
import { formatSeconds } from '@/lib/format/relative-time';
import { COMMAND_EXPIRE_DEFAULT_S } from './task-states';

export interface CommandTarget {
  id: number;
  sn: string;
  name: string;
  status: 'online' | 'offline';
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** `YYYY-MM-DD HH:mm:ss`: the moment the command goes out, to the second, as the confirmation names it. */
export const commandTime = (at: Date): string => formatSeconds(at);

/** What a device is called in a sentence: its name, else its serial number. */
export const deviceLabel = (d: { name: string; sn: string }): string => d.name.trim() || d.sn;

/**
 * The confirmation of a reboot or shutdown (SPEC §5): the time placeholder is when the command is sent (it acts at
 * once; no future time is claimed), and, when
 * some are offline, that they act when they come back (the command waits COMMAND_EXPIRE_DEFAULT_S for them).
 */
export function commandConfirm(
  type: CommandType,
  targets: readonly CommandTarget[],
  at: Date,
  t: Translate,
): { title: string; content: string; note: string | null } {
  const time = commandTime(at);
  const one = targets.length === 1;
  const content = one
    ? t(`device.command.confirm.${type}One`, { name: deviceLabel(targets[0]), time })
    : t(`device.command.confirm.${type}Many`, { count: targets.length, time });
  const offline = targets.filter((d) => d.status === 'offline').length;
  const hours = Math.round(COMMAND_EXPIRE_DEFAULT_S / 3600);
  const note = !offline
    ? null
    : one
      ? t('device.command.confirm.offlineOne', { hours })
      : t('device.command.confirm.offlineMany', { count: offline, hours });
  return { title: t(`device.command.title.${type}`), content, note };
}
