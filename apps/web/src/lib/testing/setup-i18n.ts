import { loadDictionaries } from '../i18n';

/** The browser loads the signed-in area's dictionaries with its code; tests render any screen directly. */
await loadDictionaries();
