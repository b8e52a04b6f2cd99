import { describe, expect, it } from 'vitest';
import { canDelete, canEdit, canPublish, canWithdraw, phaseOf } from './phase';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

describe('phaseOf', () => {
  it.each([
    ['a draft', { state: 'draft', publishAt: at(60), endsAt: null }, 'draft'],
    ['a published one whose time is ahead', { state: 'published', publishAt: at(60), endsAt: null }, 'scheduled'],
    ['a live one', { state: 'published', publishAt: at(-60), endsAt: at(60) }, 'published'],
    ['one whose end passed', { state: 'published', publishAt: at(-120), endsAt: at(-60) }, 'ended'],
    ['a withdrawn one', { state: 'withdrawn', publishAt: at(-60), endsAt: null }, 'withdrawn'],
  ] as const)('says %s', (_, n, want) => expect(phaseOf(n, NOW)).toBe(want));
});

describe('the actions of each state', () => {
  it.each([
    ['draft', [true, true, false, true]],
    ['published', [true, false, true, false]],
    ['withdrawn', [false, false, false, true]],
  ] as const)('%s: edit, publish, withdraw, delete', (state, want) => {
    const n = { state };
    expect([canEdit(n), canPublish(n), canWithdraw(n), canDelete(n)]).toEqual(want);
  });
});
