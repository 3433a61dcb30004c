// messages.js: the catalogue of every message between the extension's contexts.
//
//   content script ──port "slop-content"──▶ service worker ◀──port "slop-panel"── DevTools panel
//                                                  ▲      ◀──port "slop-popup"── popup
//                     options page ──chrome.storage (settings-store.js)──┘
//                     options page ──port "slop-options" (its String agent requests)──▶ service worker
//
// Every message is a plain JSON object {type, ...fields}, and every type is declared here and
// used through these constants: a context never spells a type as a string (tests/node/
// messages.test.js scans the extension for that), and a context about to post a type that is
// not in the catalogue drops it and reports UNCATALOGUED (the end-to-end tests fail on that).
//
// Naming: `<sender>/<kebab-case-name>`, the sender being where the message is written:
//   content/...   the content script               (FromContent)
//   sw/...        the service worker               (ToContent, Push)
//   ui/...        a UI page: the panel, the popup or the options page (Request)
//   panel/...     the panel's bridge, for its own store; never leaves the panel (PanelNote)
// The prefix keeps them apart from the SLOP messages the extension relays and sends (subscribe,
// query, invoke...), which are the provider's and the core's, never this catalogue's.
//
// Naming of fields and values, one rule for every message here and every file the extension
// writes (exports, recordings):
//   - What SLOP or the core names keeps its name wherever it travels: SLOP's fields (max_nodes,
//     child_ids, content_ref, total_children, slop_version), the core's events and their fields
//     (protocol_error, previous_version, retry_at), its node views, trees, reports and statuses.
//     They are snake_case because SLOP and the core print them so, and the worker passes them on
//     untouched: a Push.EVENT's `event`, a node view, the `event` of an INVOKE or QUERY reply, a
//     CHECK_DRIFT reply (the core's events).
//   - What this catalogue names is camelCase: the fields of its messages, replies and files
//     (treeText, primarySub, statusAt, previousVersion, exportedAt). Where the worker copies a
//     core field into a field of its own it renames it there, once: the core status's retry_at is
//     SyncInfo.retryAt; slop_consumer_load reads an export's exportedAt (the file is ours) and
//     answers exported_at (the answer is the core's), which imports.js gives the UI as exportedAt.
//   - Values this catalogue names are kebab-case: Status ('pending-approval', 'auth-failed'), a
//     receipt's state ('not-seen'), the reconnect mode ('crash-loop'), Connect to's kind ('no-answer').
//   - Error codes are snake_case, ErrorCode as SLOP's error codes (not_found, invalid_params) and
//     the core's (bad_json): a code reads the same whether the provider, the core or the worker refused.
//   - "restart" alone is the provider's: the core's snapshot `restarted`, the reconnect mode
//     'restart', the history's boundary 'restart'. The extension's service worker starting again is
//     always called "worker": the history's boundary 'worker', the UI's "the extension restarted".
// tests/node/messages.test.js checks the values and the top-level fields of every message built
// in the extension.
//
// The UI ports (panel, popup) speak a request/reply protocol on top: a request carries a numeric
// `id`, and the service worker answers it exactly once with {type: Push.REPLY, id, ok, result |
// error}; `error` is {code, message}, its code one of ErrorCode. Everything else the service
// worker sends on a UI port is a push (no id).
//
// The service worker pushes DELTAS, never whole trees: on a snapshot it sends node views
// breadth-first up to a budget (Push.TREE_RESET); on each patch it sends fresh views of the
// changed and added nodes the port has seen (or whose parent it has seen), the removed paths, and
// the core's child insertions and removals under parents the port has seen (Push.TREE_DELTA): a
// structural change never re-sends a parent's whole child list. A view not sent yet is fetched on
// demand with Request.GET_NODES.
//
// A node view is exactly what the core's slop_consumer_node() returns: the node without its
// children, plus `child_ids` (in order) and `path` (absolute). The UI never applies patches: it
// splices child_ids at the indexes the core computed.
//
// Tokens never appear in any message here. The options page writes a token straight into
// chrome.storage.local through settings-store.js; the service worker reads it from there.
//
// Bump PROTOCOL_VERSION on any incompatible change, and note why:
//   1  first version (issue 3).
//   2  the DevTools panel (issue 4): getTree (the core's tree JSON of a subscription, for export),
//      inspectTree / closeImport (a JSON file loaded into a throwaway core consumer, read-only),
//      subscriptions made through a UI port are owned by that port and dropped when it closes.
//   3  one naming scheme (issue 8): every type is `<sender>/<kebab-name>` (watch became ui/watch,
//      getNodes ui/get-nodes, tree/reset sw/tree-reset, reply sw/reply...); reply errors carry
//      one of ErrorCode (E_STATE became bad_state, the core's E_PARAMS bad_params...).
//   4  pushes and replies may arrive coalesced in one Push.BATCH; TREE_DELTA carries its views
//      as JSON text (`views`) instead of objects (`nodes`) (issue 9).
//
// content/content.js is a classic script and cannot import this module: it repeats the type
// strings of the content section, PROTOCOL_VERSION and UNCATALOGUED verbatim (tests/node/
// messages.test.js checks they match).

import { Status } from '../../js-glue/session-status.js';
import { FRAME_LOG } from '../../js-glue/frame-log.js';
import { SlopCode } from '../../js-glue/core-contract.js';

export const PROTOCOL_VERSION = 4;

/** Port names. The service worker also checks each port's sender (see service-worker/sw.js). */
export const PORTS = Object.freeze({
  CONTENT: 'slop-content',
  PANEL: 'slop-panel',
  POPUP: 'slop-popup',
  /** The options page: its String agent requests (Request.STRING_FIND_AGENTS, STRING_USE_AGENT) and AGENT_MODELS. */
  OPTIONS: 'slop-options',
});

// ---------------------------------------------------------------------------------------------
// content script ↔ service worker (port "slop-content", one per top-level page)

/** Content script → service worker. */
export const FromContent = Object.freeze({
  /** First message on every (re)connected port. {v, url} */
  HELLO: 'content/hello',
  /** The raw contents of every <meta name="slop"> in document order, after any change. {url, metas} */
  DISCOVERY: 'content/discovery',
  /** Answer to PROBE_WELL_KNOWN: the raw /.well-known/slop response. {url, status, body, error} */
  WELL_KNOWN: 'content/well-known',
  /** A provider frame received by postMessage, origin- and source-checked. {text} */
  FRAME: 'content/frame',
  /** Keeps the service worker alive while the page has providers (sent every 20 s). {} */
  PING: 'content/ping',
});

/** Service worker → content script. */
export const ToContent = Object.freeze({
  /** There is no meta tag: fetch /.well-known/slop on the page's origin and send WELL_KNOWN. {} */
  PROBE_WELL_KNOWN: 'sw/probe-well-known',
  /** Start relaying {slop:true} provider messages of this page to the service worker. {} */
  PM_OPEN: 'sw/pm-open',
  /** Post {slop: true, message} to the page with targetOrigin = location.origin. {message} */
  PM_SEND: 'sw/pm-send',
  /** Stop relaying. {} */
  PM_CLOSE: 'sw/pm-close',
});

// ---------------------------------------------------------------------------------------------
// panel / popup ↔ service worker (ports "slop-panel" and "slop-popup")

/** UI → service worker. All but HELLO and PING are requests: they carry `id` and get a reply. */
export const Request = Object.freeze({
  /**
   * First message on every (re)connected UI port: which tab this UI shows. {v, tabId, counts?}
   * counts: true: the provider list comes again while patches change node counts (the popup).
   */
  HELLO: 'ui/hello',
  /** Liveness ping, no reply. {} */
  PING: 'ui/ping',
  /** Stream one provider's trees, events and (log: true) frame log. {key, budget?, log?} → {} */
  WATCH: 'ui/watch',
  /** {key} → {} */
  UNWATCH: 'ui/unwatch',
  /**
   * Node views on demand. {key, sub, paths} → {nodes: NodeView[], missing: string[], count}
   * missing: paths the mirror does not have (removed since the UI saw them listed); count: the
   * subscription's node count now.
   */
  GET_NODES: 'ui/get-nodes',
  /**
   * Invoke an affordance. {key, path, action, params? | paramsText?} → RequestAnswer
   * {requestId, event}: event is the request's answer, the core's `result` event, or its `error`,
   * `timeout` or `closed` event (still a reply, not a failed one: the request was sent).
   * paramsText: the params as JSON text, read keeping a 64-bit integer's digits (a port carries
   * numbers as doubles); it wins over params.
   */
  INVOKE: 'ui/invoke',
  /**
   * An extra subscription. {key, options: {path, depth, max_nodes, filter}} → {sub}
   * The core checks the options. The subscription belongs to the UI port that asked: it is
   * unsubscribed when that port closes.
   */
  SUBSCRIBE: 'ui/subscribe',
  /** {key, sub} → {} */
  UNSUBSCRIBE: 'ui/unsubscribe',
  /**
   * One-shot read. {key, options: {path, depth, max_nodes, filter, window}} → RequestAnswer
   * {requestId, event}: event is the core's `query` event, or its `error`, `timeout` or `closed` event.
   */
  QUERY: 'ui/query',
  /** What an agent would be given. {key, sub?} → {treeText, tools}: tools as the Playground offers them (the core's most salient 128, with `total`) */
  AGENT_VIEW: 'ui/agent-view',
  /**
   * Where the provider breaks SLOP: the core's conformance report (slop_consumer_conformance).
   * {key} → {frames, mirrors, nodes, must, should, dropped, rules, findings}
   */
  CONFORMANCE: 'ui/conformance',
  /**
   * The Cost tab: what the state costs, per node (slop_consumer_profile). {key, sub?, since?,
   * withTools?} → {sub, at, profile, tools, offered, leftOut, maxStateBytes, maxTools}: `leftOut`
   * is how many nodes the agent's state budget leaves out (the core's state tail; null for a
   * subscription other than the primary one); `profile` is the
   * core's JSON text (texts only of nodes changed after serial `since`); with `withTools`, `tools`
   * is every action as an LLM tool and `offered` the ones an agent is offered (the core's most
   * salient maxTools), both as the core's JSON text; else null. At the agent's defaults.
   */
  PROFILE: 'ui/profile',
  /**
   * Compare a subscription's mirror with the provider's state now (slop_consumer_check_drift).
   * {key, sub?} → the core's `drift` event itself (DriftEvent, no requestId around it); a provider
   * error, timeout or closed connection fails the request (BAD_STATE, in words).
   */
  CHECK_DRIFT: 'ui/check-drift',
  /**
   * "Send to String agent": one POST of a text snapshot of the provider to the String agent's
   * local webhook stored in Options (never retried). {key, sub?} →
   * {ok, status, message, eventId?, agentId?, receipt?, bytes, kept, total}: the daemon's answer
   * in words, the payload's size and how many of the tree's nodes it holds. When the daemon took
   * it, `receipt` {state: 'seen'|'not-seen'|'no-stream'|'failed'|'no-agent', message} says whether
   * the event showed on the agent's GET /events/stream, and `message` says both. Fails with
   * BAD_STATE when no webhook is set or the provider has no state yet.
   */
  SEND_TO_STRING: 'ui/send-to-string',
  /**
   * Options, "Find String agents on this machine": GET /agents of the daemon at `address` (a
   * loopback port or http:// origin; empty: http://127.0.0.1:3923), fetched by the worker.
   * {address} → {ok, problem?, origin, agents: [{id, home}], message}.
   */
  STRING_FIND_AGENTS: 'ui/string-find-agents',
  /**
   * Options, "Use this agent": the worker fetches GET /agents/:id/webhook and stores the URL as a
   * pasted one is stored (a secret: never in this reply). {address, agentId} →
   * {ok, problem?, origin, agentId, message}.
   */
  STRING_USE_AGENT: 'ui/string-use-agent',
  /**
   * "Connect to…": a provider no page announces. {address, token?, anyway?} where address is
   * as people type it (js-glue/provider-address.js): ws(s)://, or a page's http(s):// (its
   * /.well-known/slop is read for the ws:// address), `ws:/host`, `localhost:3737`. The provider is
   * connected once to see that it answers (its hello, read by the core); only then is it kept
   * (with the token) and shown on every tab until removed; anyway: true keeps it without asking.
   * → {kind: "slop", key, provider, checked, read} | {kind: "no-answer", key, status, message,
   * read, canSave} (nothing kept; canSave: nothing listens there yet, so "Save anyway" fits) | {kind: "agnt-gg", url, info, tools, resources} (an agnt-gg "Simple Language Open
   * Protocol" HTTP server: a different protocol, shown read-only) | {kind: "not-slop", message}.
   * A bad address or token fails with BAD_REQUEST.
   */
  CONNECT_TO: 'ui/connect-to',
  /** Forget a provider added by address. {key} → {} */
  REMOVE_PROVIDER: 'ui/remove-provider',
  /**
   * Check params against an affordance schema (the core decides). {schema, params} (or
   * schemaText, paramsText: as JSON text, as INVOKE's paramsText) →
   * {errors: [{code, path: (string|number)[], message}] | null}: every failing path, null when they fit.
   */
  VALIDATE_PARAMS: 'ui/validate-params',
  /**
   * The core's mirror of a subscription as SLOP node JSON (whole subtree, depth -1).
   * {key, sub?} → {treeText, path, version, provider, capabilities}   (export, copy): treeText is the
   * core's JSON of the mirror, its numbers as the provider wrote them (read it with parseVerbatim)
   */
  GET_TREE: 'ui/get-tree',
  /**
   * Loads a JSON document (an export of this panel, a snapshot message, or a bare node tree) into a
   * throwaway core consumer that validates it; the result is read-only and reachable with
   * GET_NODES / GET_TREE / AGENT_VIEW under the returned key until CLOSE_IMPORT or the port
   * closes. {text, name, budget?} → {key, name, fileProvider, exportedAt, sub, path, version,
   * nodes: NodeView[], complete, count}: fileProvider {id, name} and exportedAt when the file
   * names them (an export of this panel), else null.
   * An invalid document fails with ErrorCode.INVALID_TREE and the core's message.
   */
  INSPECT_TREE: 'ui/inspect-tree',
  /** {key} → {} */
  CLOSE_IMPORT: 'ui/close-import',
  /** Approve a pending cross-origin target once (persisted). {key} → {} */
  APPROVE: 'ui/approve',
  /** Deny it for this browser session. {key} → {} */
  DENY: 'ui/deny',
  /** Reconnect now, skipping the back-off wait. {key} → {} */
  RETRY: 'ui/retry',
  /**
   * The user looks at this tab (the panel or the popup got the focus or was shown): its providers
   * that wait out a reconnect back-off dial now. {} → {}
   */
  WAKE: 'ui/wake',
  /**
   * The user's answer to a dangerous (or unknown) invoke a desktop consumer sent through the
   * desktop bridge. {approval, allow} → {}; NOT_FOUND when it no longer waits. The bridge's status,
   * with the approvals waiting, is in chrome.storage.session (settings-store.js: bridgeStatus).
   * "Don't ask again" is no message: the popup writes it to storage.session first (bridgeTrust).
   */
  BRIDGE_DECIDE: 'ui/bridge-decide',
  /** Dial the desktop bridge again now (after a refused token or while waiting). {} → {} */
  BRIDGE_RETRY: 'ui/bridge-retry',
  /**
   * The history the service worker keeps for a provider's main subscription (timeline.js), or of
   * a recording opened here. {key} → {steps: Step[], info: {steps, bytes, dropped, limits, persist, provider}};
   * from then on this port gets the provider's new steps (Push.HISTORY).
   */
  HISTORY: 'ui/history',
  /**
   * The state at a step, rebuilt by the core from the recorded frames. {key, step, have?} →
   * {step, version, full, views, removed, replaced}: with `have` (the step whose state the panel
   * shows), only the views that differ, the paths gone, and the subtrees replaced whole.
   */
  HISTORY_STATE: 'ui/history-state',
  /**
   * What changed between two steps. {key, from, to, paths?} → {from, to, added, removed, changed,
   * boundaries}; with paths: true, added, removed and changed are only the paths (strings).
   */
  HISTORY_DIFF: 'ui/history-diff',
  /** Keep the history when the browser stops the service worker (written to storage.session). {key, on} → {info} */
  HISTORY_PERSIST: 'ui/history-persist',
  /** The history as a recording file (frames with their times, hello, subscription). {key} → {text, steps} */
  HISTORY_EXPORT: 'ui/history-export',
  /**
   * The steps this port views and pins in a provider's history ({key, steps: number[]} → {}): the
   * worker keeps them past the bound while the port holds them (timeline-islands.js); [] or the
   * port's end releases them.
   */
  HISTORY_HOLD: 'ui/history-hold',
  /** Pause (on: true) or resume recording a provider's history. {key, on} → {info} */
  HISTORY_PAUSE: 'ui/history-pause',
  /**
   * The listed steps that match a filter, read from every path each step touched. {key, path?,
   * kinds?: string[]} → {steps: number[] (step numbers), upTo: the newest step number checked}
   */
  HISTORY_FILTER: 'ui/history-filter',
  /**
   * Opens a recording read-only, checked (its shape here, every segment through the core). {text,
   * name} → {key, name, steps, info}; the key answers HISTORY, HISTORY_STATE and HISTORY_DIFF until
   * CLOSE_RECORDING or the port closes. A file that is not a recording fails with INVALID_TREE.
   */
  OPEN_RECORDING: 'ui/open-recording',
  /** {key} → {} */
  CLOSE_RECORDING: 'ui/close-recording',
  /**
   * The Agent playground: a model (a profile of Options → Agent models, its key read by the worker
   * only) does `task` on the tab's providers `keys` (one or more, in that order) through the core's
   * agent view, calling affordances through the normal invoke path (js-glue/agent.js runAgent).
   * {keys, profileId, task, maxSteps?} → {runId}. The run belongs to the port (closing it stops the
   * run); everything it does comes as Push.AGENT. A missing profile, a provider that is not
   * connected or a run already going on this port fails with BAD_STATE, in words.
   */
  AGENT_RUN: 'ui/agent-run',
  /**
   * Runs an exported session again without a model: its recorded replies, in order, against the
   * live providers; each call's result is compared with the recorded one (AgentCall.replay).
   * {keys, session: <the export's JSON text>} → {runId}; events as AGENT_RUN's. A file that is not
   * an exported session fails with BAD_REQUEST.
   */
  AGENT_REPLAY: 'ui/agent-replay',
  /** Stop a run: the model's request is cancelled, no further call is sent. {runId} → {} */
  AGENT_STOP: 'ui/agent-stop',
  /**
   * The user's answer to a dangerous call waiting in the chat (Push.AGENT event 'confirm').
   * {runId, confirmId, allow} → {}; NOT_FOUND when it no longer waits.
   */
  AGENT_CONFIRM: 'ui/agent-confirm',
  /**
   * The models an endpoint lists (GET /v1/models or /api/tags), fetched by the worker with the
   * profile's key. {profileId} | {endpoint: {kind, baseUrl}} (a profile not saved yet, no key) →
   * {models: [{id}]}. An endpoint that fails fails the request (BAD_STATE) with the reason in words.
   */
  AGENT_MODELS: 'ui/agent-models',
  /**
   * Local apps (descriptors on this machine, reached through the native messaging host): their
   * state now, and from then on Push.LOCAL_APPS to this port whenever it changes. A port whose
   * state is 'no-host' or 'failed' makes the worker try the host again. {} → LocalAppsState
   */
  LOCAL_APPS: 'ui/local-apps',
  /**
   * Inspect a local app: a connection to it (its Unix socket, or its command run by the host) shown
   * on every tab until LOCAL_CLOSE. {appId, approveCommand?} → {key} | {needsApproval: true, command}:
   * a stdio app whose exact command the user has not approved yet is not run; approveCommand, the
   * argv the user approved (shown to them), approves it when it equals the descriptor's command.
   * NOT_FOUND when no local app has that id; BAD_STATE when local apps are off or the host is not there.
   */
  LOCAL_OPEN: 'ui/local-open',
  /** Stop inspecting a local app (its connection closes; a command is ended). {key} → {} */
  LOCAL_CLOSE: 'ui/local-close',
});

/** Service worker → UI. */
export const Push = Object.freeze({
  /** The tab's providers, sent after HELLO and on every change. ProvidersPush */
  PROVIDERS: 'sw/providers',
  /** A subscription's (re)based mirror: node views breadth-first up to the budget. TreeResetPush */
  TREE_RESET: 'sw/tree-reset',
  /** One patch: views of changed/added nodes, removed paths. TreeDeltaPush */
  TREE_DELTA: 'sw/tree-delta',
  /**
   * A core event other than a patch or a snapshot; a snapshot only when restarted: true.
   * {key, event: CoreEvent}, with the core's text as event.exact when it may hold a number a port
   * would change (EventText): read its values with exactEvent (exact-json.js).
   */
  EVENT: 'sw/event',
  /**
   * The events the worker kept for a provider since it connected (the last 1,000 but patches),
   * sent once on WATCH, so a panel opened late still shows what happened (a fatal error too).
   * {key, events: [{t, event}]}
   */
  EVENTS: 'sw/events',
  /** New steps of a history this port asked for (Request.HISTORY), or all of them again (reset). {key, steps, reset, update, info} */
  HISTORY: 'sw/history',
  /**
   * What an Agent playground run does, as it happens (Request.AGENT_RUN, AGENT_REPLAY), on the
   * port that started it. {runId, event, ...}:
   *   'sent'     {turn: i, sent}        a request is on its way: what it holds (state bytes and
   *                                      estimated tokens, tools offered, cut or not)
   *   'delta'    {turn: i, text}        streamed answer text (several deltas may come in one BATCH)
   *   'confirm'  {confirmId, call: {name, path, action, params, description, provider}}  a dangerous
   *                                      call waits for Request.AGENT_CONFIRM
   *   'turn'     {turn}                 a turn ended: its whole record (js-glue/agent.js), each call
   *                                      with stepBefore/stepAfter (the history's steps around it) and
   *                                      diff {added, removed, changed, more} (paths, the first 50 each)
   *   'done'     {trace}                the run ended (trace.outcome says how; trace.error in words)
   */
  AGENT: 'sw/agent',
  /** Local apps changed (the list, the host's state): LocalAppsState, to ports that asked (Request.LOCAL_APPS). */
  LOCAL_APPS: 'sw/local-apps',
  /** Frame log entries (only for WATCH with log: true). {key, entries, replace} */
  LOG: 'sw/log',
  /** The answer to a request. {id, ok, result?, error?: {code: ErrorCode, message}} */
  REPLY: 'sw/reply',
  /** Several of the above, to be handled in order (a burst coalesced into one message). {pushes} */
  BATCH: 'sw/batch',
});

// ---------------------------------------------------------------------------------------------
// inside the panel

/**
 * The panel's bridge → its store, never posted on a port. The bridge queues these with the
 * pushes it receives, so the store applies everything in the order it happened.
 */
export const PanelNote = Object.freeze({
  /** The UI port's state changed. {state: 'connected'|'reconnecting', reconnected} */
  BRIDGE_STATE: 'panel/bridge-state',
  /** The views of a GET_NODES reply, applied in order with the pushes. {key, sub, nodes, missing, count} */
  BRIDGE_NODES: 'panel/bridge-nodes',
});

/**
 * The Cost tab → its profiler (extension/panel/profile-worker.js, a dedicated Web Worker of the
 * panel): never on a port. Each message carries the tab's reset count `seq`; the worker answers
 * only the latest.
 */
export const ToProfiler = Object.freeze({
  /** Request.PROFILE's answer to a request made with `since`. {seq, since, answer} */
  SAMPLE: 'panel/profile-sample',
  /** What to report and draw. {view: {by, range, maxNodes, top, depth}} */
  VIEW: 'panel/profile-view',
  /** Another provider or subscription, or a new snapshot: drop everything. {seq} */
  RESET: 'panel/profile-reset',
});

/** The profiler → the Cost tab. */
export const FromProfiler = Object.freeze({
  /** What the tab draws: the report, the map's hierarchy, the timeline, how far counting got
   *  (profile-worker.js, WorkerState). */
  STATE: 'profiler/state',
});

// ---------------------------------------------------------------------------------------------
// service worker ↔ the native messaging host (runtime.connectNative): local apps
//
// Declared once, for the host and the worker alike, in js-glue/native-host-protocol.js (the host
// is a Node program and cannot import the extension); listed here so that this catalogue names
// every message the extension sends or reads. The worker posts only ToHost types, checked by
// catalogued(msg, ToHost) as every port post is; a message of another type from the host is dropped.
export { ToHost, FromHost, HOST_NAME } from '../../js-glue/native-host-protocol.js';

// ---------------------------------------------------------------------------------------------
// errors in replies


/**
 * The UI pages, as the worker tells them apart: by the page a port comes from (browser.js
 * uiPageOf reads the sender's URL), never by the name the port gives itself.
 */
export const UiPage = Object.freeze({ PANEL: 'panel', POPUP: 'popup', OPTIONS: 'options' });

/**
 * What each page may ask beyond HELLO, PING and WAKE (every page's port sends those): the panel
 * everything, the popup and Options only what they show. A request another page sends is refused
 * (ErrorCode.NOT_ALLOWED), so a bug or a script in a small page cannot invoke, read trees or
 * run an agent.
 * @type {Readonly<Record<string, readonly string[]|'all'>>}
 */
export const PAGE_REQUESTS = Object.freeze({
  [UiPage.PANEL]: 'all',
  [UiPage.POPUP]: Object.freeze([Request.APPROVE, Request.DENY, Request.RETRY, Request.SEND_TO_STRING, Request.BRIDGE_DECIDE, Request.BRIDGE_RETRY]),
  [UiPage.OPTIONS]: Object.freeze([Request.LOCAL_APPS, Request.AGENT_MODELS, Request.STRING_FIND_AGENTS, Request.STRING_USE_AGENT]),
});

/** Whether `page` may send a request of `type`. @param {string|null} page @param {string} type */
export function pageMayAsk(page, type) {
  if (type === Request.HELLO || type === Request.PING || type === Request.WAKE) return page !== null;
  const allowed = page === null ? undefined : PAGE_REQUESTS[page];
  return allowed === 'all' || (Array.isArray(allowed) && allowed.includes(type));
}

/**
 * The `code` of a failed reply ({type: Push.REPLY, ok: false, error: {code, message}}), and of
 * the RequestFailed a UI's request() rejects with. The message says it for a person; a context
 * decides only on the code.
 */
export const ErrorCode = Object.freeze({
  /** The request is malformed (a field missing or of the wrong type), or its type is not one the
   *  service worker answers. Also the core's E_ARG: an argument it cannot read. */
  BAD_REQUEST: 'bad_request',
  /** What the request names does not exist (any more): the provider on this tab, the
   *  subscription, the node or affordance (core E_NOT_FOUND), the import. */
  NOT_FOUND: 'not_found',
  /** Not possible now: not connected or not subscribed yet, or the connection closed (core
   *  E_STATE). Retrying later may work. */
  BAD_STATE: 'bad_state',
  /** The invoke params fail the affordance's schema (core E_PARAMS); nothing was sent. */
  BAD_PARAMS: 'bad_params',
  /** The provider did not declare the capability this needs (core E_CAPABILITY). */
  NO_CAPABILITY: 'no_capability',
  /** A configured limit would be exceeded (core E_LIMIT). */
  LIMIT_EXCEEDED: 'limit_exceeded',
  /** The core ran out of wasm memory (core E_NOMEM). */
  OUT_OF_MEMORY: 'out_of_memory',
  /** INSPECT_TREE: the document is not JSON, too large, or the core refused its tree. */
  INVALID_TREE: 'invalid_tree',
  /** The page that asked may not ask that (PAGE_REQUESTS): the popup and Options ask for little. */
  NOT_ALLOWED: 'not_allowed',
  /** Anything else: a bug, or the core failed to load. The message says what. */
  INTERNAL: 'internal',
  /** UI side, never sent: the port closed before the reply came (the service worker stopped). */
  DISCONNECTED: 'disconnected',
  /** UI side, never sent: no reply in time. */
  TIMEOUT: 'timeout',
});

/** The reply code of each refusal of the core (slop_code, js-glue/core-contract.js). @type {Map<number, string>} */
const REPLY_CODE_OF = new Map([
  [SlopCode.E_ARG, ErrorCode.BAD_REQUEST],
  [SlopCode.E_CAPABILITY, ErrorCode.NO_CAPABILITY],
  [SlopCode.E_PARAMS, ErrorCode.BAD_PARAMS],
  [SlopCode.E_NOT_FOUND, ErrorCode.NOT_FOUND],
  [SlopCode.E_STATE, ErrorCode.BAD_STATE],
  [SlopCode.E_LIMIT, ErrorCode.LIMIT_EXCEEDED],
  [SlopCode.E_NOMEM, ErrorCode.OUT_OF_MEMORY],
]);

/**
 * The core's refusals by code name (js-glue's SlopError.codeName: the names of SlopCode) as reply
 * codes: the one place they are mapped. A code without a mapping, and anything not a refusal of
 * the core, is INTERNAL.
 * @type {Readonly<Record<string, string>>}
 */
export const CORE_ERROR_CODES = Object.freeze(Object.fromEntries(Object.entries(SlopCode)
  .filter(([, code]) => code !== SlopCode.OK).map(([name, code]) => [name, REPLY_CODE_OF.get(code) ?? ErrorCode.INTERNAL])));

const ERROR_CODES = new Set(Object.values(ErrorCode));

/**
 * The reply code of an error thrown while answering a request: its own `code` when that is one
 * of ErrorCode, else the core's code name mapped through CORE_ERROR_CODES, else INTERNAL.
 * @param {any} e
 * @returns {string}
 */
export function errorCodeOf(e) {
  if (typeof e?.code === 'string' && ERROR_CODES.has(e.code)) return e.code;
  return (typeof e?.codeName === 'string' && Object.hasOwn(CORE_ERROR_CODES, e.codeName))
    ? CORE_ERROR_CODES[e.codeName] : ErrorCode.INTERNAL;
}

/** Provider status values (ProviderInfo.status): the consumer session's (js-glue/session-status.js). */
export { Status };

/** Defaults a UI may override per WATCH. */
export const LIMITS = Object.freeze({
  /** Node views sent with one Push.TREE_RESET. */
  RESET_BUDGET: 500,
  /** Most node views one Request.GET_NODES returns. */
  GET_NODES_MAX: 1000,
  /** Frame log entries kept per connection (the session's, js-glue/frame-log.js). */
  LOG_ENTRIES: FRAME_LOG.entries,
  /** Frame text kept per log entry (characters); longer frames are cut and marked. */
  LOG_TEXT_MAX: FRAME_LOG.textMax,
  /** Largest document Request.INSPECT_TREE accepts (characters). */
  IMPORT_TEXT_MAX: 32 * 1024 * 1024,
  /** Imports one UI port may hold at once (the oldest is closed first). */
  IMPORTS_PER_PORT: 4,
});

// ---------------------------------------------------------------------------------------------
// options ↔ service worker: no runtime messages. Both use shared/settings-store.js over
// chrome.storage; the service worker reacts to storage.onChanged (new token: reconnect; approval
// revoked: disconnect). A token therefore never travels in a message between contexts.

// ---------------------------------------------------------------------------------------------
// the guard every port's post goes through

/**
 * What a context prints (console.error) when it was about to post a message whose type is not in
 * the catalogue. The message is dropped: the receiver would not understand it. The end-to-end
 * tests fail when any context prints it (tests/e2e/helpers.mjs, tests/firefox/helpers.mjs).
 */
export const UNCATALOGUED = 'SLOP Inspector: message type not in the catalogue';

/** @type {WeakMap<object, Set<unknown>>} */
const typeSets = new WeakMap();
/** @param {Readonly<Record<string, string>>} group */
function typesOf(group) {
  let set = typeSets.get(group);
  if (!set) typeSets.set(group, set = new Set(Object.values(group)));
  return set;
}

/**
 * True when msg.type is one of the given catalogue groups' types (e.g. Request for a UI port).
 * Otherwise reports UNCATALOGUED and returns false: the caller drops the message.
 * @param {{type?: unknown}} msg
 * @param {...Readonly<Record<string, string>>} groups
 */
export function catalogued(msg, ...groups) {
  const type = msg?.type;
  if (groups.some((g) => typesOf(g).has(type))) return true;
  console.error(`${UNCATALOGUED}: ${JSON.stringify(String(type)).slice(0, 80)} (${globalThis.location?.pathname ?? '?'})`);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Types

/**
 * @typedef {object} NodeView  slop_consumer_node(): one node, no children.
 * @property {string} id
 * @property {string} type
 * @property {string} path              absolute, "/" for the root
 * @property {string[]} child_ids       in provider order
 * @property {object} [properties]
 * @property {object} [meta]            salience, urgency, window, total_children, summary, ...
 * @property {object[]} [affordances]   {action, label?, description?, params?, dangerous?, ...}
 * @property {object} [content_ref]
 * @property {number} [more]            a windowed collection: children the provider has beyond these
 * @property {[number, number]} [next_window]   and the [offset, count] to query for the next page
 * @property {string} [exact]           the view as the core's JSON text, only when it holds an
 *                                      integer a double cannot (a 64-bit id): ports carry numbers
 *                                      as doubles, so the panel reads this text instead (exact-json.js)
 */

/**
 * @typedef {object} SubscriptionInfo  from slop_consumer_status()
 * @property {string} sub
 * @property {string} path
 * @property {import('../../js-glue/core-contract.js').SubscriptionStateValue} state
 * @property {number} version
 * @property {number} nodes
 */

/**
 * @typedef {object} ConsumerStatus  slop_consumer_status(), what SlopConsumer.status() returns
 * @property {boolean} hello
 * @property {{id: string, name: string, slop_version: string}|null} provider   from hello
 * @property {string[]} capabilities
 * @property {number} nodes               mirrored nodes, all subscriptions
 * @property {(SubscriptionInfo & {wire: string, options: object, reason: {code: string, message: string}|null,
 *   retry_at: number|null})[]} subscriptions   wire: the provider's id of it; version: absent until a snapshot
 */

/**
 * @typedef {object} SyncInfo  the first subscription, from slop_consumer_status()
 * @property {'none'|import('../../js-glue/core-contract.js').SubscriptionStateValue} state   none: no subscription
 * @property {{code: string, message: string}|null} reason   why it is not live
 * @property {number|null} retryAt        epoch ms when the core retries a stale subscription by itself
 */

/**
 * @typedef {object} ProviderInfo
 * @property {string} key                 the WebSocket URL, or "postmessage": unique per tab
 * @property {{type: 'ws'|'postmessage'|'unix'|'stdio', url?: string, path?: string, command?: string[]}} transport
 * @property {'meta'|'well-known'|'manual'|'local'} source  how it was found (manual: added by address;
 *                                        local: a local app, through the native host)
 * @property {{id: string, name: string}} [local]   a local app: its descriptor's id and name
 * @property {import('../../js-glue/session-status.js').StatusValue} status   one of Status
 * @property {number} statusAt            epoch ms of the last status change
 * @property {string} message             human-readable detail of the status ("" if none)
 * @property {number|null} retryAt        epoch ms of the next reconnect attempt
 * @property {{mode: 'restart'|'crash-loop'|'down', delay: number, closedAt: number, seq: number, settled?: boolean}|null} reconnect
 *                                        the reconnect policy's last decision (js-glue/reconnect-policy.js):
 *                                        why it waits, how long, since when the close was seen;
 *                                        settled: the mirror has been live again since
 * @property {SyncInfo} sync              the first subscription's mirror, as the core sees it
 * @property {boolean} live               status "connected" and sync.state "live": only then is
 *                                        what is shown what the provider holds now
 * @property {'same-origin'|'cross-origin'} classification   from the core
 * @property {string|null} approvalKey    from the core: where a decision is stored (never taken apart);
 *                                        null for a provider added by address or a local app
 * @property {string|null} approvalPage   from the core: the page's origin (null: opaque)
 * @property {string} approvalTarget      from the core: the target as compared
 * @property {boolean} tokenSet           a token is stored for this target's origin (never the token)
 * @property {{id: string, name: string, slop_version: string}|null} provider   from hello only
 * @property {string[]} capabilities      from hello
 * @property {string|null} primarySub     the first subscription ("/", depth -1, max_nodes 20,000)
 * @property {SubscriptionInfo[]} subscriptions
 * @property {number} nodes               mirrored nodes, all subscriptions
 */

/**
 * @typedef {object} ProvidersPush
 * @property {'sw/providers'} type   Push.PROVIDERS
 * @property {number} tabId
 * @property {string|null} pageUrl
 * @property {ProviderInfo[]} providers
 * @property {{content: string, error: string}[]} problems   meta tags or descriptors the core refused
 */

/**
 * @typedef {object} TreeResetPush
 * @property {'sw/tree-reset'} type   Push.TREE_RESET
 * @property {string} key
 * @property {string} sub
 * @property {string} path        the subscription root
 * @property {number} version
 * @property {NodeView[]} nodes   breadth-first from `path`
 * @property {boolean} complete   false when the budget cut it short (fetch the rest with GET_NODES)
 * @property {number|null} count  the subscription's node count
 * A provider restart (the core's snapshot event with restarted: true) also comes as Push.EVENT,
 * the core's event as it is, and as a boundary in the history.
 */

/**
 * @typedef {object} TreeDeltaPush
 * @property {'sw/tree-delta'} type   Push.TREE_DELTA
 * @property {string} key
 * @property {string} sub
 * @property {number} version
 * @property {string[]} removed   apply first; drops the path and everything under it
 * @property {string} views      JSON text of NodeView[]: fresh views (changed, or added under a
 *                                known parent), the core's own text passed on unparsed
 * @property {ChildChange[]} children  the core's insertions and removals, in op order, under
 *                                parents the port holds; a parent whose fresh view is in `nodes`
 *                                already shows them and is skipped
 * @property {boolean} [partial]  some added nodes under a known parent have no view here (fetch them)
 */

/** @typedef {import('../../js-glue/core-contract.js').ChildListChange} ChildChange  one entry of a core patch event's "children" */
/** @typedef {import('../../js-glue/core-contract.js').DrainedEvent} DrainedEvent */

/**
 * @typedef {object} EventPush  Push.EVENT
 * @property {'sw/event'} type
 * @property {string} key
 * @property {DrainedEvent} event
 */
/**
 * @typedef {object} EventsPush  Push.EVENTS
 * @property {'sw/events'} type
 * @property {string} key
 * @property {{t: number, event: DrainedEvent}[]} events
 */
/**
 * @typedef {object} HistoryPush  Push.HISTORY
 * @property {'sw/history'} type
 * @property {string} key
 * @property {object[]} steps   Step[] (timeline.js), oldest first
 * @property {boolean} reset    all of them again (the list was rebuilt)
 * @property {boolean} update   steps already sent, changed (their counts)
 * @property {object|null} info {steps, bytes, dropped, limits, persist, provider}
 */
/**
 * @typedef {{type: 'sw/agent', runId: string, event: 'sent'|'delta'|'confirm'|'turn'|'done', [field: string]: any}} AgentPush
 *   Push.AGENT: the run's event and its fields (see Push.AGENT)
 */
/** @typedef {{type: 'sw/local-apps'} & LocalAppsState} LocalAppsPush  Push.LOCAL_APPS */
/**
 * @typedef {object} LogPush  Push.LOG
 * @property {'sw/log'} type
 * @property {string} key
 * @property {import('../../js-glue/frame-log.js').LogEntry[]} entries
 * @property {boolean} replace  the whole log (on WATCH), not entries to append
 */
/**
 * @typedef {object} ReplyPush  Push.REPLY
 * @property {'sw/reply'} type
 * @property {number} id
 * @property {boolean} ok
 * @property {any} [result]
 * @property {{code: string, message: string}} [error]   code: one of ErrorCode
 */
/**
 * @typedef {object} BatchPush  Push.BATCH
 * @property {'sw/batch'} type
 * @property {PushMessage[]} pushes
 */
/**
 * @typedef {{type: 'panel/bridge-state', state: 'connected'|'reconnecting', reconnected: boolean}
 *   | {type: 'panel/bridge-nodes', key: string, sub: string, nodes: NodeView[], missing: string[], count: number}} PanelNoteMessage
 *   what the panel's bridge queues for its store besides the pushes (PanelNote)
 */
/**
 * @typedef {ProvidersPush|TreeResetPush|TreeDeltaPush|EventPush|EventsPush|HistoryPush|AgentPush|LocalAppsPush|LogPush|ReplyPush|BatchPush} PushMessage
 *   every message the worker posts to a UI port, told apart by `type` (one of Push)
 */

/**
 * @typedef {object} LogEntry
 * @property {'in'|'out'} dir    in: provider → extension
 * @property {number} t          epoch ms
 * @property {string} type       the frame's "type" ("?" if unreadable)
 * @property {number} size       UTF-8 bytes
 * @property {string} text       the frame, cut at LIMITS.LOG_TEXT_MAX characters
 * @property {boolean} truncated
 */

/**
 * @typedef {import('../../js-glue/core-contract.js').DrainedEvent} CoreEvent  one event of the core
 *   (wasm/include/slop_core.h, slop_consumer_next()), its names in CoreEventName, as the worker's
 *   consumer drained it: an event that may hold a number a port would change (-0, 1.50, a 64-bit
 *   integer) has the core's text beside it as `exact` (EventText), from which the UI reads the
 *   values it shows (exact-json.js exactEvent). Push.EVENT carries every event but patch and
 *   snapshot, and a snapshot when it has restarted: true.
 */
/** @typedef {import('../../js-glue/core-contract.js').DriftEvent} DriftEvent */

/**
 * @typedef {object} RequestAnswer  the reply to Request.INVOKE and Request.QUERY
 * @property {string} requestId   the core's id of the request
 * @property {CoreEvent} event    the request's first event with that id: its answer (a result's
 *                                data, a query's tree: read them through exactEvent(event))
 */

/**
 * @typedef {object} LocalAppInfo   one local app (a descriptor the host read), as the panel lists it
 * @property {string} id
 * @property {string} name
 * @property {string} file            the descriptor's path
 * @property {{type: 'unix', path: string}|{type: 'stdio', command: string[]}|{type: 'ws', url: string}} transport
 * @property {number|null} pid
 * @property {boolean|null} alive     null: no pid to tell by
 * @property {boolean} stale          its pid is not running
 * @property {string|null} description
 * @property {string|null} key        its connection's key while it is inspected, else null
 * @property {boolean} approved       stdio: the user approved exactly this command
 */

/**
 * @typedef {object} LocalAppsState
 * @property {'off'|'no-permission'|'connecting'|'ready'|'no-host'|'failed'} state
 *   off: not turned on in Options; no-permission: on, but nativeMessaging is not granted;
 *   no-host: the native host is not installed (or not for this extension); failed: it stopped
 * @property {string} message         the state in words, with what to do ("" when ready)
 * @property {LocalAppInfo[]} apps
 * @property {{dir: string, why: string, fix: string, advice: string}[]} refused   directories not read, why, and
 *   the fix (a shell command, '' when only a person can decide; advice: in words)
 * @property {{dir: string, file: string, why: string, fix: string, advice: string, recreated: boolean,
 *   direct: string|null, id: string|null}[]} ignored  descriptor files not read, why and the fix; recreated:
 *   0644 as the SDKs write it at each start (a chmod lasts until then); direct: the address that needs no
 *   descriptor (unix:/path); id: what the file says its id is (js-glue/node/local-fixes.js)
 * @property {string|null} fixAll      one shell line running every fix there is a command for
 * @property {string[]} dirs           the directories the host reads
 */

/**
 * @typedef {object} Reply
 * @property {'sw/reply'} type   Push.REPLY
 * @property {number} id
 * @property {boolean} ok
 * @property {any} [result]
 * @property {{code: string, message: string}} [error]   code: one of ErrorCode
 */
