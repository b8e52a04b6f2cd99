import 'antd/dist/reset.css';
import 'nprogress/nprogress.css';
import './app/global.css';
import { i18nReady } from './lib/i18n';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { installCallProgressBar } from './app/call-progress-bar';
import { installErrorListeners } from './app/error-listeners';

// index.html's fallback for browsers too old to run this file looks for it
(window as { __cpcBooted?: boolean }).__cpcBooted = true;
installErrorListeners();
installCallProgressBar();

// An en user's strings are a download away (zh is bundled); the first render waits for them, even if it fails.
void i18nReady.finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
