import { beforeAll, describe, expect, it } from 'vitest';
import { i18n } from '@/lib/i18n';
import { COMMAND_EXPIRE_DEFAULT_S as CONTRACT_EXPIRE, OPEN_TASK_STATES, TASK_STATES } from '@cpc/contracts';
import { commandConfirm, commandTime, deviceLabel, type CommandTarget } from './command-confirm';
import { COMMAND_EXPIRE_DEFAULT_S, TASK_STATE_ORDER, isOpenTask } from './task-states';

// en is loaded on demand in the console; its strings must be in before they are asked for
beforeAll(() => i18n.loadLanguages('en'));

const at = new Date(2026, 0, 5, 9, 3, 7);
const front: CommandTarget = { id: 1, sn: 'CP58-00001', name: 'Front desk', status: 'online' };
const back: CommandTarget = { id: 2, sn: 'CP58-00002', name: '', status: 'offline' };

describe('the reboot and shutdown confirmation', () => {
  it('names the device and the time it will reboot, in zh and en', () => {
    const zh = i18n.getFixedT('zh');
    const en = i18n.getFixedT('en');
    expect(commandConfirm('reboot', [front], at, zh)).toEqual({
      title: '重启设备',
      content: '立即重启设备“Front desk”？指令发出时间：2026-01-05 09:03:07',
      note: null,
    });
    expect(commandConfirm('reboot', [front], at, en).content).toBe(
      'Reboot "Front desk" now? Sent at 2026-01-05 09:03:07.',
    );
  });

  it('counts the devices of a batch and says the offline ones act when they are back', () => {
    const zh = i18n.getFixedT('zh');
    const en = i18n.getFixedT('en');
    const r = commandConfirm('shutdown', [front, back], at, zh);
    expect(r.title).toBe('关闭设备');
    expect(r.content).toBe('立即关闭这 2 台设备？指令发出时间：2026-01-05 09:03:07');
    expect(r.note).toBe('其中 1 台当前离线，将在 24 小时内重新上线时执行，超时作废。');
    expect(commandConfirm('shutdown', [front, back], at, en).note).toBe(
      'Offline now: 1. They act if they come back within 24 hours.',
    );
  });

  it('calls a device without a name by its serial number', () => {
    expect(deviceLabel(back)).toBe('CP58-00002');
    expect(commandConfirm('shutdown', [back], at, i18n.getFixedT('en'))).toMatchObject({
      content: 'Shut down "CP58-00002" now? Sent at 2026-01-05 09:03:07.',
      note: 'The device is offline: it will act if it comes back within 24 hours.',
    });
  });

  it('writes the time to the second', () => {
    expect(commandTime(new Date(2026, 11, 31, 23, 59, 59))).toBe('2026-12-31 23:59:59');
  });
});

describe('task states restated for the console', () => {
  it('match the contract', () => {
    expect([...TASK_STATE_ORDER]).toEqual([...TASK_STATES]);
    expect(TASK_STATES.filter(isOpenTask)).toEqual([...OPEN_TASK_STATES]);
    expect(COMMAND_EXPIRE_DEFAULT_S).toBe(CONTRACT_EXPIRE);
  });
});
