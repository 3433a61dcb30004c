// bridge-approvals.js: the desktop bridge's invokes that wait for the user (desktop-bridge.js).
// An invoke a desktop consumer relays into a page, of an affordance that is dangerous or that the
// extension's mirror does not know, waits for the user's answer in the popup, and is refused after
// APPROVAL_TIMEOUT_MS, unless the user let that provider be invoked without asking (setTrust; kept
// in storage.session by the worker, so it ends with the browser session). A trust is for the
// provider on one page origin with one hello id: a tab that navigates elsewhere is asked about again.

/** How long a relayed dangerous invoke waits for the user before it is refused. */
export const APPROVAL_TIMEOUT_MS = 60_000;
/** Approvals waiting at once; more are refused at once (a desktop flooding the popup). */
const APPROVALS_MAX = 20;
/** Providers the user let the desktop invoke without asking, at most (a session's worth). */
const TRUST_MAX = 200;

/** @typedef {import('./connections.js').Connection} Connection */

/**
 * Who a trust is for: the provider under its bridge key, on the page origin and with the hello
 * id it had when the user said yes.
 * @param {string} providerKey @param {Connection} conn
 */
export function trustKeyOf(providerKey, conn) {
  return `${providerKey} ${pageOriginOf(conn)} ${conn.provider?.id ?? ''}`;
}

/** @param {Connection} conn */
export function pageOriginOf(conn) {
  try { return new URL(/** @type {string} */ (conn.pageUrl)).origin; } catch { return ''; }
}

/**
 * The desktop consumer a relayed request names (`slop-inspector bridge` adds `agent: {id, name?}`;
 * other bridges say nothing): short strings, or null.
 * @param {unknown} a @returns {{id: string, name: string|null}|null}
 */
export function agentOf(a) {
  if (!a || typeof a !== 'object') return null;
  const text = (/** @type {unknown} */ v, /** @type {number} */ max) => (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
    ? String(v).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, max) : '');
  const id = text(/** @type {any} */ (a).id, 64);
  const name = text(/** @type {any} */ (a).name, 80);
  return id || name ? { id, name: name || null } : null;
}

/**
 * Why an invoke of `action` at `path` must wait for the user: 'dangerous', 'unknown' (the
 * extension's mirror does not show that affordance there), or null.
 * @param {Connection} conn @param {string} path @param {string} action
 */
export function needsApproval(conn, path, action) {
  /** @type {{affordances?: unknown}|null} the provider's node: its affordances unchecked */
  let view = null;
  try { view = conn.consumer && conn.primarySub ? conn.consumer.node(conn.primarySub, path) : null; } catch { view = null; }
  const aff = Array.isArray(view?.affordances) ? view.affordances.find((a) => a?.action === action) : null;
  if (!aff) return 'unknown';
  return aff.dangerous === true ? 'dangerous' : null;
}

export class BridgeApprovals {
  /**
   * approval id → {entry, decide(allow, why)}
   * @type {Map<string, {entry: import('../shared/bridge-text.js').BridgeStatus['approvals'][number], decide: (allow: boolean, why: string) => void}>}
   */
  #waiting = new Map();
  #seq = 0;
  /** Trust keys (trustKeyOf) of providers the desktop may invoke without asking. @type {Set<string>} */
  trusted = new Set();
  timeoutMs = APPROVAL_TIMEOUT_MS;

  /** @param {() => void} changed  the waiting list changed (the popup is told) */
  constructor(changed) {
    this.changed = changed;
  }

  /** @param {string} providerKey @param {Connection} conn */
  trusts(providerKey, conn) {
    return this.trusted.has(trustKeyOf(providerKey, conn));
  }

  /** The trusted providers, as the user left them. Whether anything changed. @param {unknown} keys */
  setTrust(keys) {
    const next = new Set((Array.isArray(keys) ? keys : []).filter((k) => typeof k === 'string').slice(0, TRUST_MAX));
    if (next.size === this.trusted.size && [...next].every((k) => this.trusted.has(k))) return false;
    this.trusted = next;
    return true;
  }

  /**
   * An invoke to wait for the user. `send` sends it (false when its relay or page is gone);
   * `refuse(message)` answers the desktop consumer that it was not invoked.
   * @param {{providerKey: string, conn: Connection, out: any, why: 'dangerous'|'unknown', agent: {id: string, name: string|null}|null,
   *   send: () => boolean, refuse: (message: string) => void}} o
   */
  ask({ providerKey, conn, out, why, agent, send, refuse }) {
    if (this.#waiting.size >= APPROVALS_MAX) return refuse('too many invokes are waiting for approval in SLOP Inspector');
    const id = `a${++this.#seq}`;
    let params = '';
    try { params = JSON.stringify(out.message.params ?? {}).slice(0, 500); } catch { /* not JSON */ }
    const entry = {
      id, providerKey, tabId: conn.tabId, provider: conn.provider?.name || conn.provider?.id || providerKey,
      path: out.path, action: out.action, why, params, expiresAt: Date.now() + this.timeoutMs,
      trustKey: trustKeyOf(providerKey, conn), agent,
    };
    const timer = setTimeout(() => decide(false, `no answer in SLOP Inspector within ${Math.round(this.timeoutMs / 1000)} s: not invoked`), this.timeoutMs);
    const decide = (/** @type {boolean} */ allow, /** @type {string} */ reason) => {
      if (!this.#waiting.has(id)) return;
      clearTimeout(timer);
      this.#waiting.delete(id);
      if (!allow) refuse(reason);
      else if (!send()) refuse('the provider went away');
      this.changed();
    };
    this.#waiting.set(id, { entry, decide });
    this.changed();
  }

  /** The user's answer (popup). false when the approval is no longer waiting. @param {string} id @param {boolean} allow */
  decide(id, allow) {
    const a = this.#waiting.get(id);
    if (!a) return false;
    a.decide(!!allow, 'declined in SLOP Inspector');
    return true;
  }

  /** Refuses what waits (for one provider, or all), saying why. @param {string} why @param {string} [providerKey] */
  refuseAll(why, providerKey) {
    for (const a of [...this.#waiting.values()]) if (providerKey === undefined || /** @type {any} */ (a.entry).providerKey === providerKey) a.decide(false, why);
  }

  /** What waits, for the status. */
  entries() {
    return [...this.#waiting.values()].map((a) => ({ ...a.entry }));
  }

  /** Whether something waits for a tab: its badge asks for attention. @param {number} tabId */
  waitingFor(tabId) {
    for (const a of this.#waiting.values()) if (/** @type {any} */ (a.entry).tabId === tabId) return true;
    return false;
  }
}
