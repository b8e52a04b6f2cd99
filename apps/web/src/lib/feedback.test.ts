import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { messageApi, prepareMessages } from './feedback';

// the static API's first load imports antd's message in jsdom: slower than the default 1 s under a parallel run
const slow = { timeout: 5000 };

describe('messageApi without a registered instance', () => {
  it('shows a message through antd static API once it has loaded', async () => {
    prepareMessages();
    messageApi().success('Saved');
    expect(await screen.findByText('Saved', {}, slow)).toBeTruthy();
  });

  it('starts each test without the messages an earlier one left (the set-up clears them and ends their motion)', async () => {
    expect(screen.queryByText('Saved')).toBeNull();
    expect(document.querySelector('.ant-message-notice')).toBeNull();
    messageApi().error('Left on screen');
    expect(await screen.findByText('Left on screen', {}, slow)).toBeTruthy();
  });
});
