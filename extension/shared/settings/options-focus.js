// settings/options-focus.js: what a page asks the options page to show when it opens it
// (storage.session: optionsFocus): a provider's token field, or a section.

import { storageSession } from '../browser.js';
import { KEYS } from './keys.js';
import { providerOriginOf } from './tokens.js';

/**
 * Asks the options page (about to be opened, or open already) to show the token form for this
 * provider. A hand-off through storage because runtime.openOptionsPage() takes no argument.
 * @param {string} wsUrl
 */
export async function askTokenFor(wsUrl) {
  await storageSession.set({ [KEYS.OPTIONS_FOCUS]: { origin: providerOriginOf(wsUrl), at: Date.now() } });
}

/**
 * Asks the options page (about to be opened, or open already) to show one of its sections, by its
 * element id ("agent-models"): the same hand-off as askTokenFor. @param {string} section
 */
export async function askOptionsSection(section) {
  await storageSession.set({ [KEYS.OPTIONS_FOCUS]: { section, at: Date.now() } });
}

/**
 * Options page: what askTokenFor() or askOptionsSection() asked for, once (it is removed):
 * {origin} (a provider's token), {section} (an element id), or null.
 * @returns {Promise<{origin: string|null, section: string|null}|null>}
 */
export async function takeOptionsFocus() {
  const { [KEYS.OPTIONS_FOCUS]: asked } = await storageSession.get(KEYS.OPTIONS_FOCUS);
  if (!asked) return null;
  await storageSession.remove(KEYS.OPTIONS_FOCUS);
  return {
    origin: typeof asked.origin === 'string' ? asked.origin : null,
    section: typeof asked.section === 'string' ? asked.section : null,
  };
}
