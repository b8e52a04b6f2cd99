import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, render } from '@testing-library/react';
import { App } from 'antd';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
// jsdom stand-ins (matchMedia, ResizeObserver) come from src/lib/testing/setup-dom.ts
import '@/lib/i18n';

// antd screens validate and animate asynchronously; under a parallel run on a busy machine 5 s is not always enough
configure({ asyncUtilTimeout: 15_000 });

export function renderPage(ui: ReactElement, path = '/') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <App>
        <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
      </App>
    </QueryClientProvider>,
  );
}
