// provider-requests.js: what a UI asks of a provider's connection (connections.js) and of the
// core behind it: INVOKE, QUERY, SUBSCRIBE, UNSUBSCRIBE, AGENT_VIEW, PROFILE, CONFORMANCE, CHECK_DRIFT,
// GET_TREE, VALIDATE_PARAMS; the user's answers about a provider (APPROVE, DENY, RETRY, WAKE); and
// the providers added by address (CONNECT_TO, connect-to.js; REMOVE_PROVIDER). A subscription
// made through a port belongs to it: it is unsubscribed when the port closes.

import { Request, ErrorCode } from '../shared/messages.js';
import { approve, deny, removeManualProvider } from '../shared/settings-store.js';
import { AGENT_DEFAULTS } from '../../js-glue/agent.js';
import { readPortText } from '../../js-glue/exact-json.js';
import { CoreEventName } from '../../js-glue/core-contract.js';
import { stateLeftOut } from '../../js-glue/state-profile.js';
import { core } from './core.js';
import { connectionOf, manualConnections, reconnectTab } from './tabs.js';
import { connectTo } from './connect-to.js';
import { needSource } from './imports.js';
import { perPort, RequestError, needConnection, needSub, subscriptionInfo } from './panel-ports.js';

/** @typedef {import('../../js-glue/slop-core.js').SlopConsumerT} SlopConsumer */

/** Port → provider key → the subscriptions it made. */
const ownedSubsOf = perPort(() => /** @type {Map<string, Set<string>>} */ (new Map()));

/** A field sent as JSON text (exact-json.js), read with its integers' digits. @param {unknown} text @param {string} name */
function portText(text, name) {
  const r = readPortText(text);
  if (!r.ok) throw new RequestError(ErrorCode.BAD_REQUEST, `${name} must be JSON text`);
  return r.value;
}

/** @type {import('./panel-ports.js').RequestTable} */
export const providerRequests = {
  requests: {
    async [Request.INVOKE](ui, m) {
      const conn = needConnection(ui, m.key);
      if (typeof m.path !== 'string' || typeof m.action !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'path and action must be strings');
      const params = m.paramsText === undefined ? m.params : portText(m.paramsText, 'paramsText');
      return conn.invoke(m.path, m.action, params === null ? undefined : params);
    },
    async [Request.QUERY](ui, m) {
      const conn = needConnection(ui, m.key);
      return conn.query(m.options ?? {});
    },
    [Request.SUBSCRIBE](ui, m) {
      const conn = needConnection(ui, m.key);
      const sub = conn.subscribe(m.options ?? {});
      const owned = ownedSubsOf(ui);
      if (!owned.has(conn.key)) owned.set(conn.key, new Set());
      /** @type {Set<string>} */ (owned.get(conn.key)).add(sub);
      return { sub };
    },
    [Request.UNSUBSCRIBE](ui, m) {
      const conn = needConnection(ui, m.key);
      const sub = needSub(conn, m.sub);
      conn.unsubscribe(sub);
      ownedSubsOf(ui).get(conn.key)?.delete(sub);
      return {};
    },
    [Request.AGENT_VIEW](ui, m) {
      const conn = needSource(ui, m.key);
      const sub = needSub(conn, m.sub);
      const consumer = /** @type {SlopConsumer} needSub checked it */ (conn.consumer);
      // The tools as the Playground offers them: the core's most salient AGENT_DEFAULTS.maxTools.
      return { treeText: consumer.treeText(sub), tools: consumer.tools(sub, null, 0, AGENT_DEFAULTS.maxTools) };
    },
    [Request.PROFILE](ui, m) {
      const conn = needSource(ui, m.key);
      const sub = needSub(conn, m.sub);
      const consumer = /** @type {SlopConsumer} needSub checked it */ (conn.consumer);
      const { maxStateBytes, maxTools } = AGENT_DEFAULTS;
      // Texts, not values: the panel hands them to its profiler's worker as they are.
      const tools = m.withTools ? consumer.toolsText(sub, 0) : null;
      const offered = m.withTools ? consumer.toolsText(sub, maxTools) : null;
      // What the agent's state budget cuts: the core's state tail says, not a second rule here.
      const leftOut = stateLeftOut(core(), consumer, sub, conn.primarySub, maxStateBytes);
      return { sub, at: Date.now(), profile: consumer.profileText(sub, m.since ?? 0), tools, offered, leftOut, maxStateBytes, maxTools };
    },
    [Request.CONFORMANCE](ui, m) {
      const conn = needConnection(ui, m.key);
      if (!conn.consumer) throw new RequestError(ErrorCode.BAD_STATE, 'Not connected: nothing was checked yet.');
      return conn.consumer.conformance();
    },
    async [Request.CHECK_DRIFT](ui, m) {
      const conn = needConnection(ui, m.key);
      const sub = needSub(conn, m.sub);
      const { event } = await conn.checkDrift(sub);
      if (event.event === CoreEventName.DRIFT) return event;
      throw new RequestError(ErrorCode.BAD_STATE,
        event.event === CoreEventName.TIMEOUT ? 'The provider did not answer the drift check in time.'
          : event.event === CoreEventName.CLOSED ? 'The connection closed during the drift check.'
            : `The provider answered the drift check with an error: ${event.code ?? ''} ${event.message ?? ''}`.trim());
    },
    [Request.GET_TREE](ui, m) {
      const conn = needSource(ui, m.key);
      const sub = needSub(conn, m.sub);
      const consumer = /** @type {SlopConsumer} needSub checked it */ (conn.consumer);
      const info = subscriptionInfo(consumer, sub);
      if (!info) throw new RequestError(ErrorCode.NOT_FOUND, 'No such subscription');
      const st = /** @type {import('../shared/messages.js').ConsumerStatus} */ (consumer.status());
      return {
        treeText: consumer.treeJson(sub, info.path, -1), // text: a port would round its numbers
        path: info.path,
        version: info.version ?? 0,
        provider: st.provider ?? null,
        capabilities: st.capabilities ?? [],
      };
    },
    [Request.VALIDATE_PARAMS](ui, m) {
      const schema = m.schemaText === undefined ? m.schema : portText(m.schemaText, 'schemaText');
      const params = m.paramsText === undefined ? m.params : portText(m.paramsText, 'paramsText');
      return { errors: core().validateParams(schema ?? {}, params) };
    },

    async [Request.APPROVE](ui, m) {
      const conn = needConnection(ui, m.key);
      // storage.onChanged then starts every connection with this key. Asked of a provider that
      // waits for approval: one on another origin, which has a key.
      await approve(/** @type {string} */ (conn.approvalKey), { page: conn.approvalPage, target: conn.approvalTarget });
      return {};
    },
    async [Request.DENY](ui, m) {
      const conn = needConnection(ui, m.key);
      await deny(/** @type {string} as APPROVE */ (conn.approvalKey));
      return {};
    },
    async [Request.RETRY](ui, m) {
      await needConnection(ui, m.key).retry();
      return {};
    },
    [Request.WAKE](ui) {
      if (ui.tabId !== null) reconnectTab(ui.tabId);
      return {};
    },

    async [Request.CONNECT_TO](ui, m) {
      if (typeof m.address !== 'string' || (m.token != null && typeof m.token !== 'string')) throw new RequestError(ErrorCode.BAD_REQUEST, 'address must be a string');
      try {
        return await connectTo(m.address, m.token || null, { anyway: m.anyway === true });
      } catch (e) {
        const err = /** @type {Error & {code?: string}} */ (e);
        throw new RequestError(err.code === 'bad_request' ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL, err.message);
      }
    },
    async [Request.REMOVE_PROVIDER](ui, m) {
      if (typeof m.key !== 'string' || !manualConnections.has(m.key)) throw new RequestError(ErrorCode.NOT_FOUND, 'Not a provider added by address');
      await removeManualProvider(m.key);
      return {};
    },
  },
  /** The subscriptions the port made are unsubscribed. */
  release(ui) {
    const owned = ownedSubsOf(ui);
    for (const [key, subs] of owned) {
      const conn = ui.tabId !== null ? connectionOf(ui.tabId, key) : null;
      for (const sub of subs) {
        try { conn?.unsubscribe(sub); } catch { /* the connection is gone or closed */ }
      }
    }
    owned.clear();
  },
};
