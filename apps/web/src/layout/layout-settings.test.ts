import { beforeEach, describe, expect, it } from 'vitest';
import { LAYOUT_SETTINGS_KEY } from '../config/settings';
import { DEFAULT_SETTINGS, pickSettings, sanitizeSettings, useLayoutSettings } from './layout-settings';

const stored = () => JSON.parse(localStorage.getItem(LAYOUT_SETTINGS_KEY) ?? 'null')?.state;
const live = () => pickSettings(useLayoutSettings.getState());
const store = () => useLayoutSettings.getState();

beforeEach(async () => {
  localStorage.clear();
  await useLayoutSettings.persist.rehydrate();
  store().restoreDefaults();
  store().setCollapse(false);
  store().setLock(false);
});

describe('the settings store (SPEC §2 drawer, §4)', () => {
  it('previews a change without storing it', () => {
    store().update({ layout: 'column', themeName: 'ocean' });
    expect(live()).toMatchObject({ layout: 'column', themeName: 'ocean' });
    expect(stored()).toMatchObject({ layout: 'vertical', themeName: 'blue-black' });
  });

  it('stores the previewed settings on save, and a fresh load reads them back', async () => {
    store().update({ layout: 'float', colorScheme: 'dark', showTabs: false });
    store().save();
    expect(stored()).toMatchObject({ layout: 'float', colorScheme: 'dark', showTabs: false });
    useLayoutSettings.setState({ layout: 'vertical', colorScheme: 'light' });
    await useLayoutSettings.persist.rehydrate();
    expect(live()).toMatchObject({ layout: 'float', colorScheme: 'dark', showTabs: false });
  });

  it('reverts unsaved changes to the saved ones', () => {
    store().update({ layout: 'horizontal' });
    store().save();
    store().update({ layout: 'common', themeName: 'red-white' });
    store().revert();
    expect(live()).toMatchObject({ layout: 'horizontal', themeName: 'blue-black' });
  });

  it('stores collapse and lock at once, without the unsaved changes around them', () => {
    store().update({ themeName: 'green-white' });
    store().toggleCollapse();
    store().setLock(true);
    expect(stored()).toMatchObject({ collapse: true, lock: true, themeName: 'blue-black' });
    // and reverting the preview keeps them
    store().revert();
    expect(live()).toMatchObject({ collapse: true, lock: true, themeName: 'blue-black' });
  });

  it('restores the defaults and stores them, keeping collapse and lock', () => {
    store().update({ layout: 'column', themeName: 'purple-black', fixedHeader: false });
    store().save();
    store().setCollapse(true);
    store().restoreDefaults();
    expect(live()).toEqual({ ...DEFAULT_SETTINGS, collapse: true });
    expect(stored()).toEqual({ ...DEFAULT_SETTINGS, collapse: true });
  });
});

describe('sanitizeSettings', () => {
  it('keeps valid values and gives anything else its default', () => {
    expect(
      sanitizeSettings({ layout: 'column', themeName: 'pink', showTabs: 'yes', collapse: true, extra: 1 }),
    ).toEqual({
      ...DEFAULT_SETTINGS,
      layout: 'column',
      collapse: true,
    });
  });

  it.each([null, undefined, 'vertical', 42])('falls back to the defaults for %s', (value) => {
    expect(sanitizeSettings(value)).toEqual(DEFAULT_SETTINGS);
  });

  it('reads settings stored by an older release, which lack the newer fields', async () => {
    localStorage.setItem(
      LAYOUT_SETTINGS_KEY,
      JSON.stringify({ state: { layout: 'common', themeName: 'red-black' }, version: 1 }),
    );
    await useLayoutSettings.persist.rehydrate();
    expect(live()).toEqual({ ...DEFAULT_SETTINGS, layout: 'common', themeName: 'red-black' });
    expect(store().saved).toEqual(live());
  });
});

describe('the lock across tabs', () => {
  const fromOtherTab = (state: unknown) =>
    window.dispatchEvent(
      new StorageEvent('storage', { key: LAYOUT_SETTINGS_KEY, newValue: JSON.stringify({ state, version: 1 }) }),
    );

  it('locks and unlocks with another tab, and takes nothing else from it', () => {
    useLayoutSettings.getState().setLock(false);
    useLayoutSettings.getState().update({ themeName: 'blue-black' });
    fromOtherTab({ ...DEFAULT_SETTINGS, themeName: 'red-white', lock: true });
    expect(useLayoutSettings.getState().lock).toBe(true);
    expect(useLayoutSettings.getState().themeName).toBe('blue-black');
    fromOtherTab({ ...DEFAULT_SETTINGS, lock: false });
    expect(useLayoutSettings.getState().lock).toBe(false);
  });

  it('ignores other keys and unreadable values', () => {
    useLayoutSettings.getState().setLock(false);
    window.dispatchEvent(
      new StorageEvent('storage', { key: 'something-else', newValue: JSON.stringify({ state: { lock: true } }) }),
    );
    window.dispatchEvent(new StorageEvent('storage', { key: LAYOUT_SETTINGS_KEY, newValue: '{not json' }));
    expect(useLayoutSettings.getState().lock).toBe(false);
  });
});
