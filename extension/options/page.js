// options/page.js: what every section of the options page uses: its elements by id, a time as it
// shows it, and the port to the service worker.

import { UiPort } from '../shared/ui-port.js';
import { PORTS } from '../shared/messages.js';

/**
 * The elements of options.html this page reads or sets beyond HTMLElement, by id (their tags there).
 * @typedef {{
 *   'approvals': HTMLTableElement, 'bridge-enabled': HTMLInputElement, 'bridge-form': HTMLFormElement,
 *   'bridge-remove': HTMLButtonElement, 'bridge-shared': HTMLTableElement, 'bridge-token': HTMLInputElement,
 *   'bridge-unpaired': HTMLInputElement, 'bridge-url': HTMLInputElement, 'bridge-url-form': HTMLFormElement,
 *   'history-mb': HTMLSelectElement, 'string-agents': HTMLTableElement, 'string-daemon': HTMLInputElement,
 *   'string-find-form': HTMLFormElement, 'string-form': HTMLFormElement, 'string-remove': HTMLButtonElement,
 *   'string-url': HTMLInputElement, 'token-form': HTMLFormElement, 'token-origin': HTMLInputElement,
 *   'token-value': HTMLInputElement, 'tokens': HTMLTableElement,
 *   'agent-profiles': HTMLTableElement, 'agent-form': HTMLFormElement, 'agent-name': HTMLInputElement,
 *   'agent-kind': HTMLSelectElement, 'agent-url': HTMLInputElement, 'agent-model': HTMLInputElement,
 *   'agent-model-options': HTMLDataListElement, 'agent-model-pick': HTMLSelectElement, 'agent-steps': HTMLInputElement,
 *   'agent-key': HTMLInputElement, 'agent-save': HTMLButtonElement, 'agent-cancel': HTMLButtonElement,
 *   'local-enabled': HTMLInputElement, 'local-retry': HTMLButtonElement,
 *   'agent-list-models': HTMLButtonElement, 'agent-state': HTMLSelectElement, 'agent-tools': HTMLInputElement, 'agent-first-byte': HTMLInputElement, 'agent-idle': HTMLInputElement, 'agent-run': HTMLInputElement
 * }} Elements
 */

/**
 * The element of options.html with this id.
 * @template {string} K
 * @param {K} id @returns {K extends keyof Elements ? Elements[K] : HTMLElement}
 */
export const $ = (id) => /** @type {K extends keyof Elements ? Elements[K] : HTMLElement} */ (document.getElementById(id));

export function when(ms) {
  return ms ? new Date(ms).toLocaleString() : '';
}

// The port to the worker, opened on first use: the String agents, the models of an endpoint and
// local apps ask it things; local apps follow its pushes (local-apps-section.js).
/** @type {Set<(m: any) => void>} */
const pushListeners = new Set();
/** @type {Set<() => void>} */
const reconnectListeners = new Set();
/** @param {(m: any) => void} fn  hears each push of the worker */
export const onWorkerPush = (fn) => { pushListeners.add(fn); };
/** @param {() => void} fn  hears a worker that started again (it forgot who follows what) */
export const onWorkerReconnected = (fn) => { reconnectListeners.add(fn); };
let workerPort = null;
export const worker = () => (workerPort ??= new UiPort(PORTS.OPTIONS, null, {
  onPush: (m) => { for (const fn of pushListeners) fn(m); },
  onState: (st, { reconnected }) => { if (st === 'connected' && reconnected) for (const fn of reconnectListeners) fn(); },
}).start());
