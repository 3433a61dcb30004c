// connections.js: one Connection per (tab, provider): the consumer session every consumer of this
// project runs (js-glue/consumer-session.js), plus what the extension adds: the tab and page it
// belongs to, where it was found, the user's approval for a provider on another origin, and the
// worker's fan-out of its events (connectionEvents).
//
// The flow of one provider frame through the worker: the transport (WsTransport, or the content
// script's port for a postMessage provider, tabs.js) → Connection.receive → connectionEvents.input
// (timelines.js records it) → the core → Connection.pump → connectionEvents.coreEvent
// (timelines.js adds a step, which history-requests.js pushes to the ports following the
// history; tree-watch.js turns a patch into a delta for each port watching) and
// connectionEvents.frame (the Log, tree-watch.js) → connectionEvents.change when the status or
// the mirror's state changed (tabs.js: badge, provider lists). sw.js adds these listeners, in
// this order, in one place; every push leaves through the outbox of panel-ports.js.
//
// It imports nothing of the WebExtension API: what it needs (the core, the stored token,
// approvals, a WebSocket class) comes in `o.host`.

import { ConsumerSession, sessionListeners } from '../../js-glue/consumer-session.js';
import { Status } from '../shared/messages.js';

/**
 * @typedef {import('../../js-glue/consumer-session.js').SessionHost & {
 *   isApproved: (approvalKey: string) => Promise<boolean>,
 *   isDenied: (approvalKey: string) => Promise<boolean>,
 * }} ConnectionHost
 */

/** The worker's listeners: every Connection reports here unless it is given its own (a probe). */
export const connectionEvents = sessionListeners();

/** @extends {ConsumerSession<ConnectionHost>} */
export class Connection extends ConsumerSession {
  /**
   * @param {object} o
   * @param {number} o.tabId
   * @param {string} o.key                 ws URL or "postmessage"
   * @param {import('../../js-glue/consumer-session.js').SessionTransport} o.transport   from the core (parseMeta / parseDescriptor), or a local app's descriptor
   * @param {'meta'|'well-known'|'manual'|'local'} o.source
   * @param {{id: string, name: string}} [o.local]   a local app: its descriptor's id and name
   * @param {string|null} o.pageUrl       null: a provider added by address
   * @param {{classification: 'same-origin'|'cross-origin', page_origin: string|null, target: string, approval_key: string|null}} o.target
   *   core classifyTarget()
   * @param {{open(): void, send(message: object): void, close(): void}} [o.page]  postMessage channel
   * @param {ConnectionHost} o.host
   * @param {import('../../js-glue/consumer-session.js').SessionListeners} [o.listeners]  where it
   *   reports (default: connectionEvents); a probe (connect-to.js) has its own, so no panel,
   *   history or badge hears of it
   */
  constructor(o) {
    super({ key: o.key, transport: o.transport, page: o.page, host: o.host, listeners: o.listeners ?? connectionEvents });
    this.tabId = o.tabId;
    this.source = o.source;
    this.pageUrl = o.pageUrl;
    this.classification = o.target.classification;
    this.approvalKey = o.target.approval_key;
    this.approvalPage = o.target.page_origin;
    this.approvalTarget = o.target.target;
    this.local = o.local ?? null;
  }

  /** Public summary for the UI (ProviderInfo of messages.js). Never contains a token. */
  info() {
    return {
      ...super.info(),
      source: this.source,
      classification: this.classification,
      approvalKey: this.approvalKey,
      approvalPage: this.approvalPage,
      approvalTarget: this.approvalTarget,
      ...(this.local ? { local: { ...this.local } } : {}),
    };
  }

  /** Connects, or waits for the user's approval when the core says the target is cross-origin. */
  async start() {
    if (this.disposed) return;
    if (this.classification !== 'same-origin') {
      const gen = ++this.generation;
      const key = /** @type {string} */ (this.approvalKey); // a cross-origin target has one
      const [approved, denied] = await Promise.all([this.host.isApproved(key), this.host.isDenied(key)]);
      if (this.disposed || gen !== this.generation) return;
      if (!approved) {
        // Not (or no longer) approved: nothing of this provider is kept.
        this.halt(denied ? Status.DENIED : Status.PENDING_APPROVAL,
          denied ? 'Denied for this browser session.' : `${this.approvalPage ?? 'This page'} names a provider on another origin.`);
        return;
      }
    }
    await super.start();
  }
}
