// settings-store.js: the user's settings in extension storage, shared by the options page (writes)
// and the service worker (reads, and reacts to storage.onChanged). One module per feature under
// settings/ (the storage keys and what each holds: settings/keys.js); this index is what callers
// import, so a page or the worker names one module for all of them.

export { KEYS } from './settings/keys.js';
export * from './settings/tokens.js';
export * from './settings/options-focus.js';
export * from './settings/approvals.js';
export * from './settings/string-webhook.js';
export * from './settings/desktop-bridge.js';
export * from './settings/local-apps.js';
export * from './settings/manual-providers.js';
export * from './settings/history-bound.js';
export * from './settings/agent-profiles.js';
