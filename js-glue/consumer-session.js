// consumer-session.js: one SLOP consumer session: a core consumer (slop-core.js), its transport (a
// WebSocket, or a page's postMessage channel handed in), its status, reconnects (reconnect-
// policy.js), requests and frame log. What every consumer of this project runs: the extension's
// Connection (extension/service-worker/connections.js) extends it with a tab, approvals and the
// worker's fan-out; the Node client (node/client.js) uses it as it is.
//
// The core consumer is created once and survives reconnects: after a new transport opens,
// consumer.reset() makes the core forget the old hello and re-send its subscriptions, so the
// mirror re-bases from a fresh snapshot. The session reports to `listeners` (its own, unless one
// is given): status changes, every core event, every frame in or out.
//
// It imports nothing of a browser or of Node: what it needs from where it runs (the core, a
// token, a WebSocket class) comes in `host`.

import { Status } from './session-status.js';
import { WsTransport, serverAnswers } from './ws-transport.js';
import { handshakeFailure, noHello, notSlop, helloRefused } from './failure-text.js';
import { INITIAL_STATE, isLoopbackUrl, noteEnd, noteUserRetry, reconnectDelay } from './reconnect-policy.js';
import { logEntry, FRAME_LOG } from './frame-log.js';
import { localAddress } from './provider-address.js';
import { CoreEventName, SubscriptionState } from './core-contract.js';
import { syncOf, sessionListeners, emit } from './session-host.js';
import { SessionRequests, FIRST_SUBSCRIPTION } from './session-requests.js';

export { sessionListeners } from './session-host.js';
export { NOT_CONNECTED, FIRST_SUBSCRIPTION } from './session-requests.js';
/** @typedef {import('./session-host.js').SessionHost} SessionHost */
/** @typedef {import('./session-host.js').SessionTransport} SessionTransport */
/** @typedef {import('./session-host.js').LocalTransportSpec} LocalTransportSpec */
/** @typedef {import('./session-host.js').StreamHandlers} StreamHandlers */
/** @typedef {import('./session-host.js').SessionListeners} SessionListeners */

/** How many core events (all but patches) a connection keeps for events(). */
const EVENTS_KEPT = 1000;

/** A postMessage provider that has not said hello yet gets `connect` again after this. */
const HELLO_WAIT_MS = 2000;

/** How long an open WebSocket may stay silent before "no hello" is said (the connection stays). */
const WS_HELLO_WAIT_MS = 5000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** The bytes as text, or null when they are not UTF-8. @param {Uint8Array} bytes */
function utf8Text(bytes) {
  try { return strictUtf8.decode(bytes); } catch { return null; }
}

/** @typedef {import('./session-status.js').StatusValue} StatusValue */
/** @typedef {import('./frame-log.js').LogEntry} LogEntry */
/** @typedef {import('./reconnect-policy.js').ReconnectState} ReconnectState */

/** @template {SessionHost} [H=SessionHost] what it needs from where it runs */
export class ConsumerSession extends SessionRequests {
  /**
   * @param {object} o
   * @param {string} o.key                 ws URL or "postmessage"
   * @param {SessionTransport} o.transport   {type: 'ws', url}, {type: 'postmessage'}, or a local
   *   provider's {type: 'unix', path} or {type: 'stdio', command}
   * @param {{open(): void, send(message: object): void, sendText?(text: string): void, close(): void}} [o.page]
   *   postMessage channel; sendText, when it has one, takes the frame's text as the core wrote it
   *   (a channel that carries text keeps every digit)
   * @param {H} o.host
   * @param {SessionListeners} [o.listeners]  where it reports (default: its own)
   */
  constructor(o) {
    super();
    this.host = o.host;
    /** @type {SessionListeners} */
    this.listeners = o.listeners ?? sessionListeners();
    this.key = o.key;
    this.transport = o.transport;
    this.page = o.page ?? null;

    /** @type {StatusValue} */
    this.status = Status.DISCOVERED;
    this.statusAt = Date.now();
    this.message = '';
    /** @type {number|null} */
    this.retryAt = null;
    /** The first subscription's state as last read from the core (ProviderInfo.sync). */
    this.sync = syncOf(null, null);
    this.tokenSet = false;
    /** @type {{id: string, name: string, slop_version: string}|null} */
    this.provider = null;
    /** @type {string[]} */
    this.capabilities = [];
    /** @type {LogEntry[]} */
    this.log = [];
    /**
     * Core events but patches, newest last, each with `at` (ms): what the test library reads.
     * @type {Array<Record<string, any> & {at: number}>}  the core's events (its JSON)
     */
    this.events = [];

    /** @type {{isOpen: boolean, send(text: string): void, close(): void}|null} */
    this.wire = null;          // the open transport (WsTransport, or the page channel)
    this.attempt = 0;          // postMessage: connects without a hello since the last one
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
    /**
     * What the reconnect policy knows of how the last connections ended (reconnect-policy.js).
     * @type {ReconnectState}
     */
    this.reconnectState = INITIAL_STATE;
    /**
     * The policy's last decision: {mode, delay, closedAt, seq} (closedAt: when the close was seen),
     * with `settled: true` once the mirror is live again (the status no longer tells of it).
     * @type {{mode: 'restart'|'crash-loop'|'down', delay: number, closedAt: number, seq: number, settled?: boolean}|null}
     */
    this.reconnect = null;
    /** @type {number|null} */
    this.liveAt = null;        // when the first subscription went live on this transport
    this.refusedInRestart = false; // a handshake failed with the server up, since the last restart
    this.disposed = false;
    /**
     * Why the last attempt failed, in the words every surface uses (failure-text.js), and the
     * Node client's error code for it; null while nothing failed since the last connect.
     * @type {import('./failure-text.js').Failure|null}
     */
    this.failure = null;
    /** The core's words for the first frame refused before any hello on this connection. */
    this.firstRefusal = null;
    this.framesIn = 0;         // frames received on this connection
    this.stopped = false;      // a fatal error: no reconnect until retry()
    this.generation = 0;       // bumps on every connect(), to drop stale async results
  }

  get isPostMessage() {
    return this.transport.type === 'postmessage';
  }

  /** A local provider's Unix socket or command (SLOP's stream transports: one frame per line). */
  get isStream() {
    return this.transport.type === 'unix' || this.transport.type === 'stdio';
  }

  /** The provider's address in words: its ws URL, `unix:<path>`, `stdio:<command>`, or "postmessage". */
  get address() {
    return this.isStream ? localAddress(/** @type {LocalTransportSpec} */ (/** @type {unknown} */ (this.transport))) : this.transport.url ?? this.key;
  }

  /** Connected, and the first subscription's mirror is what the provider holds now. */
  get live() {
    return this.status === Status.CONNECTED && this.sync.state === SubscriptionState.LIVE;
  }

  /** A summary of the session (the extension adds its tab's part: ProviderInfo of messages.js). Never contains a token. */
  info() {
    let subscriptions = /** @type {{sub: string, path: string, state: import('./core-contract.js').SubscriptionStateValue, version: number, nodes: number}[]} */ ([]);
    let nodes = 0;
    if (this.consumer) {
      const st = this.consumer.status();
      subscriptions = (st.subscriptions ?? []).map((s) => ({
        sub: s.sub, path: s.path, state: s.state, version: s.version ?? 0, nodes: s.nodes ?? 0,
      }));
      nodes = st.nodes ?? 0;
      this.#noteSync(st);
    }
    return {
      key: this.key,
      transport: { ...this.transport },
      status: this.status,
      statusAt: this.statusAt,
      message: this.message,
      retryAt: this.retryAt,
      reconnect: this.reconnect && { ...this.reconnect },
      sync: { ...this.sync, reason: this.sync.reason && { ...this.sync.reason } },
      live: this.live,
      tokenSet: this.tokenSet,
      provider: this.provider,
      capabilities: this.capabilities,
      primarySub: this.primarySub,
      subscriptions,
      nodes,
    };
  }

  /** @param {StatusValue} status @param {string} [message] @param {number|null} [retryAt] */
  #setStatus(status, message = '', retryAt = null) {
    if (status !== this.status) this.statusAt = Date.now();
    this.status = status;
    this.message = message;
    this.retryAt = retryAt;
    this.#refreshSync();
    emit(this.listeners.change, this);
  }

  /** Re-reads the first subscription's state from the core; true if it changed. */
  #refreshSync() {
    const before = this.sync;
    this.#noteSync(this.consumer ? this.consumer.status() : null);
    const a = before, b = this.sync;
    return a.state !== b.state || a.retryAt !== b.retryAt || a.reason?.code !== b.reason?.code || a.reason?.message !== b.reason?.message;
  }

  /** @param {any} st core status() or null */
  #noteSync(st) {
    const sync = syncOf(st, this.primarySub);
    this.sync = sync;
    // How long it is live decides, when it ends, between a restart and a crash loop.
    if (sync.state === SubscriptionState.LIVE && this.status === Status.CONNECTED && this.liveAt === null) {
      this.liveAt = Date.now();
      this.refusedInRestart = false;
      if (this.reconnect) this.reconnect = { ...this.reconnect, settled: true };
    }
  }

  // ------------------------------------------------------------------------- life cycle

  /** Connects (the extension's Connection asks for the user's approval first where needed). */
  async start() {
    if (this.disposed) return;
    await this.connect();
  }

  /**
   * Stops where it stands and shows why (the extension: not approved): no transport, no mirror,
   * no provider, until start() again.
   * @param {StatusValue} status @param {string} message
   */
  halt(status, message) {
    this.#disconnect();
    this.#dropConsumer();
    this.provider = null;
    this.capabilities = [];
    this.#setStatus(status, message);
  }

  /** (Re)opens the transport now. */
  async connect() {
    if (this.disposed) return;
    clearTimeout(this.timer ?? undefined);
    this.timer = null;
    this.stopped = false;
    this.#disconnect();
    this.liveAt = null;
    this.failure = null;
    this.firstRefusal = null;
    this.framesIn = 0;
    const gen = ++this.generation;
    const now = Date.now();
    if (!this.consumer) {
      this.consumer = new (this.host.core().SlopConsumer)({ transport: this.isPostMessage ? 'postmessage' : this.isStream ? this.transport.type : 'ws' });
      this.primarySub = this.consumer.subscribe(FIRST_SUBSCRIPTION, now);
    } else {
      this.consumer.reset(now);
    }
    this.provider = null;
    this.capabilities = [];

    if (this.isPostMessage) {
      this.#setStatus(Status.CONNECTING, 'Waiting for the page’s hello…');
      const page = /** @type {NonNullable<ConsumerSession['page']>} */ (this.page); // a postMessage session has one
      this.wire = { isOpen: true, send: page.sendText ? (text) => /** @type {(text: string) => void} */ (page.sendText)(text) : (text) => page.send(JSON.parse(text)), close: () => page.close() };
      page.open();
      this.pump();
      this.timer = setTimeout(() => this.#helloMissing(gen), HELLO_WAIT_MS * 2 ** Math.min(this.attempt, 4));
      return;
    }

    if (this.isStream) {
      this.#openStream(gen);
      return;
    }

    const token = await this.host.tokenFor(/** @type {string} */ (this.transport.url));
    if (this.disposed || gen !== this.generation) return;
    this.tokenSet = !!token;
    this.#setStatus(Status.CONNECTING, token ? 'Opening the WebSocket (with token)…' : 'Opening the WebSocket…');
    const ws = new WsTransport(/** @type {string} */ (this.transport.url), {
      token,
      WebSocket: this.host.WebSocket,
      onOpen: () => {
        if (gen !== this.generation) return;
        this.#setStatus(Status.CONNECTING, 'Connected, waiting for hello…');
        this.pump();
        this.#waitForHello(gen);
      },
      onFrame: (frame) => { if (gen === this.generation) this.receive(frame); },
      onClose: (info) => { if (gen === this.generation) this.#wsClosed(info, gen); },
    });
    this.wire = ws;
  }

  /** An open transport that says nothing is said so after a while (the connection stays). @param {number} gen */
  #waitForHello(gen) {
    const wait = this.host.helloWaitMs ?? WS_HELLO_WAIT_MS;
    this.timer = setTimeout(() => {
      if (gen !== this.generation || this.provider || this.failure) return;
      this.failure = noHello(this.address, wait, this.isStream ? (this.transport.type === 'unix' ? 'socket' : 'command') : 'WebSocket');
      this.#setStatus(Status.CONNECTING, this.failure.message);
    }, wait);
  }

  /** A local provider: its Unix socket, or its command run with stdio. @param {number} gen */
  #openStream(gen) {
    const t = /** @type {LocalTransportSpec} */ (/** @type {unknown} */ (this.transport));
    if (!this.host.openStream) {
      this.stopped = true;
      this.#setStatus(Status.ERROR, `${this.address} is a local provider, and this consumer cannot reach local providers`);
      return;
    }
    this.#setStatus(Status.CONNECTING, t.type === 'unix' ? `Connecting to ${t.path}…` : `Starting ${this.address.slice(6)}…`);
    try {
      this.wire = this.host.openStream(t, {
        onOpen: () => {
          if (gen !== this.generation) return;
          this.#setStatus(Status.CONNECTING, 'Connected, waiting for hello…');
          this.pump();
          this.#waitForHello(gen);
        },
        onFrame: (frame) => { if (gen === this.generation) this.receive(frame); },
        onOversize: (bytes) => { if (gen === this.generation) this.receiveOversize(bytes); },
        onClose: (info) => { if (gen === this.generation) this.#streamClosed(info); },
      });
    } catch (e) {
      this.stopped = true;
      this.#setStatus(Status.ERROR, String(/** @type {any} */ (e)?.message ?? e));
    }
  }

  /**
   * A local provider's socket closed, or its command ended. A socket is dialled again as a
   * loopback WebSocket is (a restarting app comes back at the same path); a command is not run
   * again by itself (retry() runs it again): an exit is its answer.
   * @param {{opened: boolean, noListener?: boolean, message: string}} info
   */
  #streamClosed(info) {
    const { closedAt, liveMs } = this.#transportGone();
    if (this.disposed) return;
    const message = info.message.charAt(0).toUpperCase() + info.message.slice(1);
    if (this.transport.type === 'stdio') {
      this.stopped = true;
      this.failure = { code: 'unreachable', message };
      this.#setStatus(info.opened || info.noListener ? Status.UNREACHABLE : Status.ERROR, message);
      return;
    }
    if (!info.opened) this.failure = { code: 'unreachable', message };
    this.#scheduleReconnect(info.opened ? Status.RECONNECTING : Status.UNREACHABLE, message, { opened: info.opened, liveMs }, closedAt);
  }

  /**
   * A line the transport dropped unread for its size: the core reports it as an oversize frame.
   * @param {number} bytes
   */
  receiveOversize(bytes) {
    if (this.disposed || !this.consumer) return;
    this.consumer.receiveOversize(bytes, Date.now());
    this.#logFrame('in', `(a line of over ${bytes} bytes, dropped unread)`, '');
    this.pump();
  }

  /**
   * A frame from the provider (WebSocket message, or verified postMessage via the content script):
   * its text, or a binary frame's bytes. The core reads either and refuses what is not UTF-8 JSON.
   * @param {string|Uint8Array} frame
   */
  receive(frame) {
    if (this.disposed || !this.consumer) return;
    // Bytes are shown and recorded as their text; bytes that are not UTF-8 as a binary frame (the
    // core refuses them whole, so a recording without them replays the same states).
    const text = typeof frame === 'string' ? frame : utf8Text(frame);
    if (text !== null && this.listeners.input.size) emit(this.listeners.input, this, text);
    this.consumer.receive(frame, Date.now());
    const type = this.consumer.frameType();
    this.#logFrame('in', text ?? frame, type); // before pump: the log line precedes its events
    this.pump();
    // A provider's first word is its hello: a first frame that is anything else is no SLOP provider.
    if (this.framesIn++ === 0 && !this.provider && !this.isPostMessage && !this.disposed && this.status === Status.CONNECTING) {
      this.failure = type === 'hello'
        ? helloRefused(this.address, this.firstRefusal ?? 'refused')
        : notSlop(this.address, this.firstRefusal ?? `a ${type || 'non-SLOP'} message`);
      this.#setStatus(Status.CONNECTING, this.failure.message);
    }
  }

  /**
   * Drains the core: frames go to the transport, events to handleEvent. After events that may
   * have changed a subscription's state the UI hears of it at once; patches are checked only
   * while the mirror is not live (one may revive it), so a live stream costs no status() call.
   */
  pump() {
    if (!this.consumer) return;
    let recheck = false;
    let snapshot = false;
    for (const out of this.consumer.drain()) {
      if (out.kind === 'send') {
        if (this.wire?.isOpen) {
          this.wire.send(out.frame);
          this.#logFrame('out', out.frame);
        }
      } else {
        const ev = out.event;
        // Any event but a patch may change a subscription's state; a patch only revives one.
        if (ev.event !== CoreEventName.PATCH || this.sync.state !== SubscriptionState.LIVE) recheck = true;
        if (ev.event === CoreEventName.SNAPSHOT) snapshot = true;
        this.#handleEvent(ev);
        if (!this.consumer) return; // a listener disposed of the connection
      }
    }
    // A snapshot changes node counts even when the state stays "live".
    if ((recheck && this.#refreshSync()) || snapshot) emit(this.listeners.change, this);
  }

  /** @param {number} now */
  tick(now) {
    if (!this.consumer || this.disposed) return;
    this.consumer.tick(now);
    this.pump(); // a subscription the core retries by itself (retry_at) comes with a resync event
  }

  /** Stops everything and frees the core consumer. */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.timer ?? undefined);
    if (this.consumer && this.wire?.isOpen && this.primarySub) {
      try { this.consumer.unsubscribe(this.primarySub, Date.now()); this.pump(); } catch { /* closed */ }
    }
    this.#disconnect();
    this.#dropConsumer();
  }

  #dropConsumer() {
    for (const [id, { resolve, kind }] of this.pending) resolve({ event: CoreEventName.CLOSED, id, request: kind, message: 'the provider went away' });
    this.pending.clear();
    this.consumer?.free();
    this.consumer = null;
    this.primarySub = null;
  }

  /**
   * User asked to retry now (popup / panel). Over an open connection whose first subscription is
   * stale or failed, the core resubscribes (resync) instead of the connection being torn down.
   */
  retry() {
    if (this.status === Status.CONNECTED && this.wire?.isOpen && this.primarySub && !this.live) {
      /** @type {import('./slop-core.js').SlopConsumerT} */ (this.consumer).resync(this.primarySub, Date.now()); // connected: it has one
      this.pump();
      if (this.#refreshSync()) emit(this.listeners.change, this);
      return Promise.resolve();
    }
    this.attempt = 0;
    this.reconnectState = noteUserRetry(this.reconnectState);
    return this.start();
  }

  /**
   * Something says the user is looking (the tab reloaded or navigated, a panel or the popup
   * opened or got the focus): a connection waiting out its back-off dials now.
   */
  reconnectNow() {
    if (this.disposed || this.stopped || !this.timer || this.isPostMessage) return Promise.resolve();
    if (this.status !== Status.RECONNECTING && this.status !== Status.UNREACHABLE) return Promise.resolve();
    return this.retry();
  }

  // ----------------------------------------------------------------------------- private

  /** @param {import('./core-contract.js').DrainedEvent} ev a core event (slop_core.h) */
  #handleEvent(ev) {
    if (ev.event !== CoreEventName.PATCH) {
      // A query's tree goes to its caller, not into this list (it may be megabytes), nor its text.
      this.events.push(ev.event === CoreEventName.QUERY ? { at: Date.now(), ...ev, tree: undefined, exact: undefined } : { at: Date.now(), ...ev });
      if (this.events.length > EVENTS_KEPT) this.events.splice(0, this.events.length - EVENTS_KEPT);
    }
    switch (ev.event) {
      case CoreEventName.HELLO:
        this.provider = {
          id: String(ev.provider?.id ?? ''),
          name: String(ev.provider?.name ?? ''),
          slop_version: String(ev.provider?.slop_version ?? ''),
        };
        // The capability list the core accepted (status() is the core's view of the hello).
        this.capabilities = (this.consumer?.status().capabilities ?? []).map(String);
        // No back-off reset here: the policy judges the connection when it ends (noteEnd).
        clearTimeout(this.timer ?? undefined);
        this.timer = null;
        this.#setStatus(Status.CONNECTED);
        break;
      case CoreEventName.PROTOCOL_ERROR:
        if (!this.provider && this.firstRefusal === null) this.firstRefusal = String(ev.message ?? ev.code ?? 'refused');
        if (ev.fatal) {
          this.stopped = true;
          this.#disconnect();
          this.consumer?.close(Date.now());
          this.#setStatus(Status.ERROR, String(ev.message ?? 'fatal protocol error'));
        }
        break;
      default:
        break;
    }
    // A request's first event with its id is its answer (slop_core.h, the events).
    const id = 'id' in ev ? ev.id : undefined;
    if (id !== undefined && this.pending.has(id)) {
      /** @type {{resolve: (event: any) => void}} */ (this.pending.get(id)).resolve(ev);
      this.pending.delete(id);
    }
    emit(this.listeners.coreEvent, this, ev);
  }

  /** @param {number} gen */
  #helloMissing(gen) {
    if (this.disposed || gen !== this.generation || this.provider) return;
    this.attempt++;
    // The page's provider may start after the content script: ask again, less and less often.
    this.connect().then(() => {
      if (!this.provider && !this.disposed) {
        this.message = 'No hello from the page yet; asking again…';
        emit(this.listeners.change, this);
      }
    });
  }

  /**
   * The transport is gone: the core fails what was pending and marks the mirrors stale. When it
   * closed, and how long the first subscription had been live (the reconnect policy reads both).
   */
  #transportGone() {
    const closedAt = Date.now();
    const liveMs = this.liveAt === null ? null : closedAt - this.liveAt;
    this.wire = null;
    if (this.consumer) {
      this.consumer.close(closedAt);
      this.pump();
    }
    return { closedAt, liveMs };
  }

  /** @param {import('./ws-transport.js').CloseInfo} info @param {number} gen */
  async #wsClosed(info, gen) {
    const { closedAt, liveMs } = this.#transportGone();
    if (this.disposed) return;
    if (info.kind === 'construct') {
      this.stopped = true;
      this.#setStatus(Status.ERROR, info.message);
      return;
    }
    /** @type {StatusValue} */
    let status = Status.RECONNECTING;
    let message = info.message;
    let refused = false; // a server answered and refused the upgrade: no restart in progress
    if (info.kind === 'subprotocol') {
      status = Status.AUTH_FAILED;
    } else if (!info.opened) {
      // Refused handshake or nobody there? Node's `ws` tells (the HTTP status, or the refused
      // connection); a browser sees 1006 for both, so the network is asked.
      const up = info.httpStatus ? true : info.noListener ? false : await serverAnswers(/** @type {string} */ (this.transport.url));
      if (this.disposed || gen !== this.generation) return;
      // Right after a restart the handshake may fail because nobody listened yet, and the new
      // process may answer by the time it is asked: once, that is the restart going on, not a
      // refusal (a second refusal in a row is one).
      const starting = up && this.reconnectState.restarted && !this.refusedInRestart;
      this.refusedInRestart = up && this.reconnectState.restarted;
      if (starting) {
        message = 'The provider is starting again.';
      } else {
        this.failure = handshakeFailure(/** @type {string} */ (this.transport.url), { surface: this.host.surface ?? 'extension', httpStatus: info.httpStatus ?? null, listening: up });
        status = this.failure.code === 'auth_failed' ? Status.AUTH_FAILED : Status.UNREACHABLE;
        message = this.failure.message;
        refused = up;
      }
    }
    this.#scheduleReconnect(status, message, { opened: info.opened, liveMs, refused }, closedAt);
  }

  /**
   * @param {StatusValue} status @param {string} message
   * @param {{opened: boolean, liveMs: number|null, refused?: boolean}} run @param {number} closedAt
   */
  #scheduleReconnect(status, message, run, closedAt) {
    this.reconnectState = noteEnd(this.reconnectState, run);
    // A Unix socket is on this machine: restarts are as quick as on a loopback WebSocket.
    const { delay, mode } = reconnectDelay(this.reconnectState, { loopback: this.isStream || isLoopbackUrl(/** @type {string} */ (this.transport.url)) });
    const at = Date.now() + delay;
    this.reconnect = { mode, delay, closedAt, seq: (this.reconnect?.seq ?? 0) + 1 };
    clearTimeout(this.timer ?? undefined);
    this.timer = setTimeout(() => { this.timer = null; this.start(); }, delay);
    this.#setStatus(status, message, at);
  }

  #disconnect() {
    const w = this.wire;
    this.wire = null;
    if (w) {
      try { w.close(); } catch { /* already closed */ }
      if (this.consumer) this.consumer.close(Date.now());
      this.pump();
    }
  }

  /** @param {'in'|'out'} dir @param {string|Uint8Array} frame @param {string} [type] */
  #logFrame(dir, frame, type = undefined) {
    const entry = logEntry(dir, frame, type);
    this.log.push(entry);
    if (this.log.length > FRAME_LOG.entries) this.log.splice(0, this.log.length - FRAME_LOG.entries);
    emit(this.listeners.frame, this, entry);
  }
}
