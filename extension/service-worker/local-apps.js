// local-apps.js: local apps (SLOP providers on this machine: descriptors in ~/.slop/providers and
// /tmp/slop/providers, Unix sockets, stdio commands), reached through the native messaging host
// (bin/slop-native-host.js, registered by `npx slop-inspector install-host`): a browser cannot
// open a Unix socket or run a command itself.
//
// While the user has local apps on (Options) and the browser granted nativeMessaging, the worker
// keeps one port to the host: it asks for the list (the host pushes it again whenever the
// directories change) and opens each inspected app's transport on a channel of that port. An
// inspected app is a Connection like any other (its key "local:<id>", shown on every tab with
// the providers added by address): the session's stream path (host.openStream) gets a wire whose
// frames are the host's, as text; the core reads them. Tree, detail, invoke, History, Conformance
// and Playground work on it unchanged.
//
// A stdio app runs a command: it is opened only once the user approved that exact argv
// (settings-store: localApprovals, per descriptor id); the host checks it again.
//
// The apps being inspected are kept in storage.session (localOpen): a worker that starts again
// opens them again once the host has listed them (a stdio app only while its command is approved).

import { Request, Push, ErrorCode, ToHost, FromHost, HOST_NAME, catalogued } from '../shared/messages.js';
import { connectNative, hasNativeMessaging, nativeHostMissing } from '../shared/browser.js';
import { localAppsEnabled, isLocalCommandApproved, approveLocalCommand, openLocalApps, setLocalAppOpen } from '../shared/settings-store.js';
import { chunkJoiner } from '../../js-glue/native-host-protocol.js';
import { Connection } from './connections.js';
import { localConnections, sharedProvidersChanged, MANUAL_TAB, workerHost } from './tabs.js';
import { allUiPorts, post, perPort, RequestError } from './panel-ports.js';

/** What to run to install the host, as the panel and Options say it. */
export const INSTALL_COMMAND = 'npx slop-inspector install-host';
/** A host that stopped after it worked is started again after this. */
const RESTART_MS = 5000;

/** @typedef {import('../shared/messages.js').LocalAppsState} LocalAppsState */
/** @typedef {import('../../js-glue/consumer-session.js').StreamHandlers} StreamHandlers */

/** @type {LocalAppsState['state']} */
let state = 'off';
let message = '';
/** The host's last list. @type {{providers: any[], refused: any[], ignored: any[], dirs: any[], fixAll: string|null}} */
let scan = { providers: [], refused: [], ignored: [], dirs: [], fixAll: null };
/** @type {import('../shared/browser.js').NativePort|null} */
let port = null;
let joiner = chunkJoiner();
let nextChannel = 1;
/** @type {Map<number, StreamHandlers & {opened: boolean}>} */
const channels = new Map();
/** @type {ReturnType<typeof setTimeout>|null} */
let restartTimer = null;
let generation = 0;

/** The ports that asked for local apps (Request.LOCAL_APPS) get every change. */
const following = perPort(() => ({ on: false }));

/** @param {{type: string, [field: string]: any}} msg */
function hostSend(msg) {
  if (port && catalogued(msg, ToHost)) port.send(msg);
}

/** @param {unknown} a @param {unknown} b */
const sameArgv = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

/** @param {LocalAppsState['state']} s @param {string} words */
function setState(s, words) {
  state = s;
  message = words;
  broadcast();
}

/** The state a UI is given (LocalAppsState). @returns {Promise<LocalAppsState>} */
export async function localAppsState() {
  const apps = await Promise.all(scan.providers.map(async (p) => {
    const key = `local:${p.id}`;
    return {
      id: String(p.id), name: String(p.name), file: String(p.file ?? ''), transport: p.transport,
      pid: Number.isInteger(p.pid) ? p.pid : null, alive: typeof p.alive === 'boolean' ? p.alive : null, stale: !!p.stale,
      description: typeof p.descriptor?.description === 'string' ? p.descriptor.description : null,
      key: localConnections.has(key) ? key : null,
      approved: p.transport?.type === 'stdio' ? await isLocalCommandApproved(p.id, p.transport.command) : true,
    };
  }));
  return {
    state, message, apps,
    refused: scan.refused.map((d) => ({ dir: String(d.dir), why: String(d.why ?? ''), fix: String(d.fix ?? ''), advice: String(d.advice ?? '') })),
    ignored: scan.ignored.map((f) => ({
      dir: String(f.dir), file: String(f.file), why: String(f.why ?? ''), fix: String(f.fix ?? ''), advice: String(f.advice ?? ''),
      recreated: f.recreated === true, direct: typeof f.direct === 'string' ? f.direct : null, id: typeof f.id === 'string' ? f.id : null,
    })),
    fixAll: typeof scan.fixAll === 'string' ? scan.fixAll : null,
    dirs: scan.dirs.map((d) => String(typeof d === 'string' ? d : d.dir)),
  };
}

let broadcastDue = false;
/** The ports following local apps get the state again (once per task). */
function broadcast() {
  if (broadcastDue) return;
  broadcastDue = true;
  setTimeout(async () => {
    broadcastDue = false;
    const targets = allUiPorts().filter((ui) => following(ui).on);
    if (!targets.length) return;
    const s = await localAppsState();
    for (const ui of targets) post(ui, { type: Push.LOCAL_APPS, ...s });
  }, 0);
}

// ------------------------------------------------------------------------------- the host

/**
 * Starts or stops the host to match the settings and the permission (at start, when Options
 * changes local apps, when a permission is granted or removed).
 */
export async function configureLocalApps() {
  const on = await localAppsEnabled();
  if (!on) {
    stopHost();
    closeAll();
    scan = { providers: [], refused: [], ignored: [], dirs: [], fixAll: null };
    setState('off', 'Local apps are off: turn them on in the extension’s Options (Local apps).');
    return;
  }
  if (!(await hasNativeMessaging())) {
    stopHost();
    setState('no-permission', 'Local apps are on, but the browser has not granted native messaging: turn Local apps off and on again in Options to be asked.');
    return;
  }
  if (!port) startHost();
}

function startHost() {
  clearTimeout(restartTimer ?? undefined);
  restartTimer = null;
  const gen = ++generation;
  joiner = chunkJoiner();
  setState('connecting', 'Starting the native host…');
  let ready = false;
  port = connectNative(HOST_NAME, {
    onMessage: (m) => {
      if (gen !== generation) return;
      const first = !ready && m?.type === FromHost.LOCAL_PROVIDERS;
      if (first) ready = true;
      onHostMessage(m);
      if (first) reopen().catch((e) => console.error('SLOP Inspector: local apps:', e?.message ?? e));
    },
    onDisconnect: (error) => { if (gen === generation) hostGone(error, ready); },
  });
  hostSend({ type: ToHost.LIST });
}

function stopHost() {
  clearTimeout(restartTimer ?? undefined);
  restartTimer = null;
  generation++;
  const p = port;
  port = null;
  failChannels('the native host was stopped');
  try { p?.disconnect(); } catch { /* gone */ }
}

/** @param {string} error the browser's words @param {boolean} wasReady */
function hostGone(error, wasReady) {
  port = null;
  generation++;
  failChannels(`the native host stopped${error ? ` (${error})` : ''}`);
  if (!wasReady && nativeHostMissing(error)) {
    setState('no-host', `The native messaging host is not installed${error ? ` (the browser says: ${error.replace(/\.$/, '')})` : ''}. Install it with ${INSTALL_COMMAND}, then try again.`);
  } else if (!wasReady) {
    setState('failed', `The native host did not start${error ? `: ${error.replace(/\.$/, '')}` : ''}. Is it installed (${INSTALL_COMMAND})? Its log lines are in the browser’s own log.`);
  } else {
    setState('failed', `The native host stopped${error ? `: ${error.replace(/\.$/, '')}` : ''}; starting it again in ${RESTART_MS / 1000} s.`);
    restartTimer = setTimeout(() => { restartTimer = null; configureLocalApps().catch(() => {}); }, RESTART_MS);
  }
}

/** Every open channel ends: its session hears a close (a socket is dialled again by its session). @param {string} why */
function failChannels(why) {
  const all = [...channels.values()];
  channels.clear();
  for (const ch of all) ch.onClose({ opened: ch.opened, message: why });
}

/** @param {any} m a message from the host */
function onHostMessage(m) {
  if (m?.type === FromHost.CHUNK) {
    const r = joiner.add(m);
    if (!r) return;
    if ('error' in r) { console.warn('SLOP Inspector: native host:', r.error); return; }
    m = r.message;
  }
  if (!m || typeof m.type !== 'string' || !Object.values(FromHost).includes(m.type)) return;
  const ch = Number.isInteger(m.channel) ? channels.get(m.channel) : undefined;
  switch (m.type) {
    case FromHost.LOCAL_PROVIDERS:
      scan = {
        providers: Array.isArray(m.providers) ? m.providers.filter((/** @type {any} the host's JSON */ p) => p && typeof p.id === 'string' && p.transport) : [],
        refused: Array.isArray(m.refused) ? m.refused : [],
        ignored: Array.isArray(m.ignored) ? m.ignored : [],
        dirs: Array.isArray(m.dirs) ? m.dirs : [],
        fixAll: typeof m.fixAll === 'string' ? m.fixAll : null,
      };
      setState('ready', '');
      break;
    case FromHost.OPEN:
      if (ch) { ch.opened = true; ch.onOpen(); }
      break;
    case FromHost.FRAME:
      if (!ch) break;
      if (typeof m.text === 'string') ch.onFrame(m.text);
      else if (typeof m.base64 === 'string') ch.onFrame(Uint8Array.from(atob(m.base64), (c) => c.charCodeAt(0)));
      break;
    case FromHost.OVERSIZE:
      if (ch && Number.isFinite(m.bytes)) ch.onOversize(m.bytes);
      break;
    case FromHost.CLOSED:
      if (!ch) break;
      channels.delete(m.channel);
      ch.onClose({ opened: !!m.info?.opened, noListener: !!m.info?.noListener, message: String(m.info?.message ?? 'closed') });
      break;
    case FromHost.ERROR:
      console.warn('SLOP Inspector: native host:', String(m.message ?? ''));
      break;
    default:
      break;
  }
}

/**
 * The session's stream (ConsumerSession host.openStream) for the local app `id`: a channel of the
 * host's port.
 * @param {string} id @param {string[]|null} approvedCommand
 * @param {StreamHandlers} h
 */
function openChannel(id, approvedCommand, h) {
  if (!port || state !== 'ready') {
    queueMicrotask(() => h.onClose({ opened: false, message: message || 'the native host is not running' }));
    return { isOpen: false, send: () => false, close: () => {} };
  }
  const channel = nextChannel++;
  const ch = { ...h, opened: false };
  channels.set(channel, ch);
  hostSend({ type: ToHost.OPEN, channel, id, ...(approvedCommand ? { approvedCommand } : {}) });
  return {
    get isOpen() { return ch.opened && channels.get(channel) === ch; },
    /** @param {string} text */
    send(text) {
      if (!ch.opened || channels.get(channel) !== ch) return false;
      hostSend({ type: ToHost.SEND, channel, text });
      return true;
    },
    close() {
      if (channels.get(channel) !== ch) return;
      channels.delete(channel);
      hostSend({ type: ToHost.CLOSE, channel });
    },
  };
}

function closeAll() {
  if (localConnections.size === 0) return;
  for (const conn of localConnections.values()) {
    conn.dispose();
    if (conn.local) setLocalAppOpen(conn.local.id, false).catch(() => {});
  }
  localConnections.clear();
  sharedProvidersChanged();
}

/** The apps inspected before the worker stopped, opened again (the host has just listed them). */
async function reopen() {
  for (const id of await openLocalApps()) {
    const app = scan.providers.find((p) => p.id === id);
    if (!app || localConnections.has(`local:${id}`)) continue;
    const t = app.transport;
    if (t.type === 'stdio' && !(await isLocalCommandApproved(id, t.command))) continue;
    openApp(app, t.type === 'stdio' ? [...t.command] : null);
  }
}

/**
 * A connection to a local app, made and started (or the one there is).
 * @param {any} app a provider of the host's list @param {string[]|null} approved a stdio app's approved argv
 * @returns {Connection}
 */
function openApp(app, approved) {
  const t = app.transport;
  const key = `local:${app.id}`;
  let conn = localConnections.get(key);
  if (conn && !sameTransport(conn.transport, t)) { // its descriptor changed: a new connection
    conn.dispose();
    localConnections.delete(key);
    conn = undefined;
  }
  if (conn) {
    if (!conn.live) conn.retry().catch(() => {});
    return conn;
  }
  conn = new Connection({
    tabId: MANUAL_TAB, key, transport: t.type === 'ws' ? { type: 'ws', url: t.url } : { ...t }, source: 'local', pageUrl: null,
    target: { classification: 'same-origin', page_origin: null, target: key, approval_key: null },
    local: { id: app.id, name: String(app.name) },
    host: { ...workerHost, openStream: (_t, h) => openChannel(app.id, approved, h) },
  });
  localConnections.set(key, conn);
  conn.start().catch((e) => console.error('SLOP Inspector: local app:', e?.message ?? e));
  setLocalAppOpen(app.id, true).catch(() => {});
  sharedProvidersChanged();
  broadcast();
  return conn;
}

// ------------------------------------------------------------------------------ requests

/** @param {any} a @param {any} b */
const sameTransport = (a, b) => a?.type === b?.type && a.path === b.path && a.url === b.url && (a.type !== 'stdio' || sameArgv(a.command, b.command));

/** @type {import('./panel-ports.js').RequestTable} */
export const localAppsRequests = {
  requests: {
    async [Request.LOCAL_APPS](ui) {
      following(ui).on = true;
      // Asked again while the host is missing or stopped: try it again (it may be installed now).
      if (state === 'no-host' || state === 'failed') await configureLocalApps();
      return localAppsState();
    },
    async [Request.LOCAL_OPEN](ui, m) {
      if (typeof m.appId !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'appId must be a string');
      if (state !== 'ready') throw new RequestError(ErrorCode.BAD_STATE, message || 'Local apps are not ready');
      const app = scan.providers.find((p) => p.id === m.appId);
      if (!app) throw new RequestError(ErrorCode.NOT_FOUND, `No local app "${m.appId}" is announced now`);
      const t = app.transport;
      if (t.type !== 'unix' && t.type !== 'stdio' && t.type !== 'ws') throw new RequestError(ErrorCode.BAD_STATE, `A ${t.type} transport is not one the extension opens`);
      /** @type {string[]|null} */
      let approved = null;
      if (t.type === 'stdio') {
        if (m.approveCommand !== undefined) {
          if (!sameArgv(m.approveCommand, t.command)) throw new RequestError(ErrorCode.BAD_STATE, 'The app’s command changed since it was shown: look at it again before you approve it');
          await approveLocalCommand(app.id, t.command);
        }
        if (!(await isLocalCommandApproved(app.id, t.command))) return { needsApproval: true, command: [...t.command] };
        approved = [...t.command];
      }
      return { key: openApp(app, approved).key };
    },
    async [Request.LOCAL_CLOSE](ui, m) {
      const conn = typeof m.key === 'string' ? localConnections.get(m.key) : undefined;
      if (!conn) throw new RequestError(ErrorCode.NOT_FOUND, 'Not a local app being inspected');
      conn.dispose();
      localConnections.delete(m.key);
      if (conn.local) await setLocalAppOpen(conn.local.id, false);
      sharedProvidersChanged();
      broadcast();
      return {};
    },
  },
  release(ui) {
    following(ui).on = false;
  },
};

/** The approvals changed (Options or another panel): the UIs see which commands are approved. */
export function localApprovalsChanged() {
  broadcast();
}
