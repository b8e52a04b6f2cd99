import { loadDictionaries } from '../i18n';
// dayjs follows the language as it does under the console's providers
import '../locale-sync';

/** The browser loads the signed-in area's dictionaries with its code; tests render any screen directly. */
await loadDictionaries();
