import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

// The smallest React 19 page: the bench sets the console's first load against it.
createRoot(document.getElementById('root')!).render(createElement('h1', null, 'React + ReactDOM'));
