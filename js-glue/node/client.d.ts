// slop-inspector/node: a SLOP consumer in Node, on the extension's own wasm core and connection
// code, for providers that have no page and for scripts.

import { SlopProvider, SlopEvent, SlopRestart, ConformanceReport } from './provider.js';

export * from './provider.js';

export interface ConnectOptions {
  /** Offered as the subprotocol list ["slop.bearer", token]. Never logged. */
  token?: string | null;
  /** The Origin header to send; providers that check Origin must allow it. Default: none. */
  origin?: string;
  /** How long to wait until the mirror is live (ms). Default 10000. */
  timeout?: number;
  /** Keep retrying while nothing answers (a server still starting) instead of failing at once. */
  waitForServer?: boolean;
  /** How long a request (invoke, query, subscribe) waits for its answer (ms). Default: the core's 30000. */
  requestTimeout?: number;
  /**
   * Whose advice a failure's message gives: 'node' (connect()'s options, the default) or 'cli'
   * ($SLOP_TOKEN, --token-file, --origin). The cause is said in the same words either way.
   */
  surface?: 'node' | 'cli';
  /**
   * How numbers come back. 'exact' (the default): JavaScript numbers, except integers a double
   * cannot hold, which are ExactNumbers. 'verbatim': every number JavaScript would write otherwise
   * (-0 aside: 1.50, 1E5, 64-bit integers) is an ExactNumber holding the provider's text, so that
   * stringifyExact writes what the provider sent (the CLI's --json outputs use this).
   */
  numbers?: 'exact' | 'verbatim';
  /**
   * A `local:<id>` whose descriptor names a stdio command runs it only when this is true or is
   * that exact argv (the user approved that command). Default false: rejects "pending_approval".
   */
  runCommand?: boolean | string[];
  /** Where `local:<id>` looks for descriptors. Default: $SLOP_PROVIDER_DIRS, else ~/.slop/providers and /tmp/slop/providers. */
  dirs?: string[];
}

/** A stdio provider the caller names itself: its command, run as this argv (never through a shell). */
export interface StdioAddress {
  command: string[];
}

/** connect() to a provider a desktop bridge shares (a browser tab's, announced by SLOP Inspector). */
export interface BridgeConnectOptions {
  /** The bridge's address. Default ws://127.0.0.1:9339/slop-bridge. */
  bridge?: string;
  /** Its providerKey as the bridge announces it ("12:postmessage"), or the provider's name or id. */
  provider: string;
  /** How long to wait for the bridge, then until the mirror is live (ms). Default 10000. */
  timeout?: number;
  /** A WebSocket provider is dialled at the url the bridge announced, with this token. Never logged. */
  token?: string | null;
  /** The Origin header for a WebSocket provider. */
  origin?: string;
  /** How long a request waits for its answer (ms). Default: the core's 30000. */
  requestTimeout?: number;
  /** As ConnectOptions.numbers. */
  numbers?: 'exact' | 'verbatim';
}

/** A provider a desktop bridge shares: its provider-available announcement. */
export interface BridgeProvider {
  providerKey: string;
  tabId: unknown;
  provider: { id: string; name: string; transport: 'ws' | 'postmessage' | string; url?: string };
}

export class SlopClient extends SlopProvider {
  /** The ws:// URL this client connects to (through a desktop bridge: the bridge's). */
  readonly url: string;
  /**
   * What the client noticed and did not refuse, in words: a local:<id> descriptor whose provider
   * answered under another id (a stale descriptor, another app on its socket).
   */
  readonly warnings: string[];
  /** Calls fn for every core event from now on, patches included; returns a function that stops it. */
  onEvent(fn: (event: SlopEvent | ({ event: 'patch'; version: number; ops: number; changed: string[];
    added: string[]; removed: string[] } & Record<string, unknown>)) => void): () => void;
  /**
   * Calls fn each time the provider restarts from now on (a new process whose version went back),
   * once the mirror holds its new tree; returns a function that stops it.
   */
  onRestart(fn: (restart: SlopRestart) => void): () => void;
  /**
   * An LLM agent on this provider: the model sees the core's agent view (the state tail and the
   * tool list the panel's Agent tab shows) and acts through this connection's invokes. Throws a
   * TypeError when the endpoint config is wrong (kind, URL, model).
   */
  agent(options: AgentOptions): Agent;
  /**
   * Plays an exported agent session (sessionText(trace), or the panel's Export) against this
   * provider as it is now, without a model; each call gets `replay: {recorded, same}`. Rejects with
   * an Error in words for a text that is not a session.
   */
  replayAgent(session: string, options?: AgentRunOptions & { allowDangerous?: boolean }): Promise<AgentTrace>;
  /**
   * What the state costs an agent: one sample now, then one a second for `seconds`, every text's
   * tokens counted (o200k_base, gpt-tokenizer), and the report: totals, the agent view's budgets,
   * the top subtrees, the churn table, the hints. Rejects with SlopTestError "not_found" when the
   * subscription has no mirror.
   */
  profile(options?: ProfileOptions): Promise<ProfileReport>;
  /** Unsubscribes, closes the WebSocket (through a bridge: the relay and the bridge connection) and frees the core's consumer. Idempotent. */
  close(): void;
}

/** An OpenAI-compatible (/v1/chat/completions) or Ollama (/api/chat) endpoint. */
export interface AgentEndpoint {
  kind: 'openai' | 'ollama';
  /** http(s)://host:port[/path]; a trailing /v1 (openai) or /api (ollama) is taken off. */
  baseUrl: string;
  /** Sent only as "Authorization: Bearer <key>" to this endpoint; never in a trace, error or log. A local endpoint needs none. */
  apiKey?: string | null;
}

export interface AgentOptions {
  endpoint: AgentEndpoint;
  model: string;
  /** Model requests per run (1 to 100). Default 8. */
  maxSteps?: number;
  /** Run dangerous affordances without asking. Default false: refused unless confirm says yes. */
  allowDangerous?: boolean;
  /** 0 to 2; the endpoint's default when absent. */
  temperature?: number;
  /** The state text's budget in UTF-8 bytes (at least 512); longer state is cut at whole lines, and the trace says so. Default 65536. */
  maxStateBytes?: number;
  /** Tools offered per request, in the core's order (the top of the tree first); the trace and the model are told of a cut. Default 128 (OpenAI's limit). */
  maxTools?: number;
  /** How long the model may take to send the first byte of an answer (ms, at least 100). Default 120000: a local model may load first. Past it, the run ends with error kind "timeout". */
  firstByteMs?: number;
  /** How long a streamed answer may stay silent between two chunks (ms, at least 100). Default 60000. Past it: "timeout". */
  idleMs?: number;
  /** How long the whole run may take (ms). Default 0: no limit. Past it: "timeout". */
  runMs?: number;
  /** Asked before a dangerous call; true runs it. */
  confirm?: (call: AgentConfirmCall) => boolean | Promise<boolean>;
}

export interface AgentConfirmCall {
  name: string;
  path: string;
  action: string;
  params: unknown;
  /** The arguments as the model wrote them (JSON text): an id's digits as sent, which params may round. */
  arguments: string;
  description: string;
  provider: { id: string; name: string } | null;
}

export interface AgentRunOptions {
  /** Stop: cancels the request in flight; the trace ends with outcome "stopped". */
  signal?: AbortSignal;
  confirm?: (call: AgentConfirmCall) => boolean | Promise<boolean>;
  /** After each turn, with its row of the trace. */
  onTurn?: (turn: AgentTurn) => void;
  /** Before each request, with the turn's `sent`. */
  onSent?: (turn: AgentTurn) => void;
  /** The model's text as it streams. */
  onDelta?: (text: string, turn: number) => void;
}

export interface Agent {
  /** Runs a task; resolves with the trace whatever happened (outcome, error in words). */
  run(task: string, options?: AgentRunOptions): Promise<AgentTrace>;
  /** The endpoint's models (GET /v1/models or /api/tags). Rejects with an Error whose `kind` says why. */
  models(): Promise<{ id: string }[]>;
}

export type AgentErrorKind = 'config' | 'not-connected' | 'unreachable' | 'auth' | 'rate-limit' | 'server' | 'no-tools'
  | 'context' | 'not-found' | 'bad-request' | 'bad-response' | 'timeout' | 'internal';

export interface AgentToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them. */
  arguments: string;
  parsed?: unknown;
  /** Why the arguments could not be read. */
  error?: string;
}

export interface AgentCall {
  id: string;
  name: string;
  /** From the core's resolve map; null for an unknown tool. */
  path: string | null;
  action: string | null;
  params: unknown;
  /** A dangerous call: whether it ran. */
  confirmed?: boolean;
  /** Why it was not sent (unknown tool, malformed arguments, params outside the schema, not confirmed, refused by the core). */
  refused?: string;
  /** The core's failures of the params check. */
  paramErrors?: { code: string; path: (string | number)[]; message: string }[];
  /** Sent, but Stop came before its result. */
  pending?: boolean;
  /** The core's answer (result, error, timeout or closed event). */
  result: SlopEvent | null;
  /** The mirror's version before the invoke and once its answer came: the History steps of its diff. */
  versionBefore: number | null;
  versionAfter: number | null;
  /** With several providers: whose tool it was. */
  provider?: string | null;
  /** The session it went through: the provider's ws:// URL. */
  key?: string;
  /** A replay: what the recording's call came to, and whether this one came to the same. */
  replay?: { recorded: unknown; same: boolean };
}

export interface AgentTurn {
  i: number;
  sent: {
    stateBytes: number;
    /** stateBytes / 4. */
    stateTokensEst: number;
    tools: number;
    messages: number;
    bodyBytes: number;
    /** The core cut the state to the budget (maxStateBytes). */
    stateCut?: true;
    /** Nodes the cut state leaves out. */
    nodesLeftOut?: number;
    toolsCut?: true;
    /** The actions the providers offer in all; the most salient maxTools were sent. */
    toolsTotal?: number;
  } | null;
  reply: { text: string; toolCalls: AgentToolCall[]; finish: string | null } | null;
  calls: AgentCall[];
  /** The whole turn. */
  ms: number;
  /** buildMs + routeMs: the loop's own work; modelMs: the request; invokeMs: the provider; confirmMs: the user. */
  timing: { buildMs: number; modelMs: number; routeMs: number; invokeMs: number; confirmMs: number } | null;
  usage: { promptTokens: number | null; completionTokens: number | null; totalTokens: number | null } | null;
}

export interface AgentTrace {
  task: string;
  model: string | null;
  endpoint: { kind: 'openai' | 'ollama' | null; baseUrl: string | null };
  providers: ({ id: string; name: string } | null)[];
  startedAt: string;
  maxSteps: number;
  maxStateBytes: number;
  maxTools: number;
  turns: AgentTurn[];
  outcome: 'answered' | 'step-limit' | 'stopped' | 'error';
  error?: { kind: AgentErrorKind; message: string; retryAfter?: number };
  /** A replay: the recorded session it played. */
  replayOf?: { startedAt: string | null; model: string | null; turns: number };
}

/** An agent trace as an exported session's text: what replayAgent takes and the panel's Replay opens. */
export function sessionText(trace: AgentTrace): string;

/**
 * Connects to a provider and resolves once the whole tree is mirrored and live. url: a ws:// or
 * wss:// URL; `unix:/path/to/app.sock` (a local provider's Unix socket, NDJSON); `local:<id or
 * name>` (a local provider's descriptor file: its socket, WebSocket or command); or {command}, a
 * stdio provider run as that argv (fd 3/4, or stdout/stdin).
 * Rejects with SlopTestError: "auth_failed" (refused handshake: token or Origin), "unreachable"
 * (nothing answers, not a ws:// URL, a command that exited: its code and last stderr line),
 * "protocol_error" (a fatal protocol error, with the core's message), "timeout" (connected but not
 * live in time), "no_provider" (no such local descriptor), "pending_approval" (a descriptor's
 * command not approved with runCommand).
 */
export function connect(url: string | StdioAddress, options?: ConnectOptions): Promise<SlopClient>;
/**
 * Connects to a provider a desktop bridge shares (`slop-inspector bridge`, or another SLOP bridge)
 * and resolves once its tree is mirrored and live. A relayed (postMessage) provider is driven
 * through the bridge; a WebSocket one is dialled at the url the bridge announced. Rejects with
 * SlopTestError: "unreachable" (no bridge there), "no_provider" (none of that key, name or id: the
 * message lists what the bridge shares, and `providers` holds it), "ambiguous" (several share that
 * name), and what connect(url) rejects with.
 */
export function connect(options: BridgeConnectOptions): Promise<SlopClient>;

/** What a desktop bridge shares now. Rejects with SlopTestError "unreachable" when no bridge answers. */
export function bridgeProviders(options?: { bridge?: string; timeout?: number }): Promise<BridgeProvider[]>;

export interface CheckOptions {
  token?: string | null;
  /** As ConnectOptions.runCommand and dirs, for a local:<id> address. */
  runCommand?: boolean | string[];
  dirs?: string[];
  origin?: string;
  /** How long to wait until live, and for each answer (the core's request timeout) (ms). Default 10000. */
  timeout?: number;
  /** How long to watch a live provider's patches before the report (ms). Default 2000. */
  watch?: number;
  /** Compare the mirror with the provider's state (a drift check) when live. */
  drift?: boolean;
  /** Invoke one affordance when live; the answer is judged (status, shape, time, `accepted` without `async`). */
  invoke?: { path: string; action: string; params?: unknown } | null;
}

/**
 * Judges a provider whether or not it goes live (a bad hello, a refused snapshot, none in time:
 * report.live false, report.not_live why). Rejects with SlopTestError only when nothing could be
 * judged: "unreachable", "auth_failed", "timeout" (nothing answered).
 */
export function checkConformance(url: string | StdioAddress, options?: CheckOptions): Promise<{
  report: ConformanceReport;
  provider: { id: string; name: string; slop_version?: string; capabilities: string[] } | null;
  drift?: SlopEvent;
  invoke?: { path: string; action: string; requestId: string; event: SlopEvent };
}>;

/** What a profile measures and ranks by: tokens of the tree text, of the tool definitions, JSON bytes, nodes, ops. */
export type ProfileMeasure = 'tokens' | 'tools' | 'bytes' | 'nodes' | 'traffic';

export interface ProfileOptions {
  /** Seconds to sample after the first sample, one sample a second. Default 0 (one sample). */
  seconds?: number;
  /** The measure the subtrees are ranked by. Default 'tokens'. */
  by?: ProfileMeasure;
  /** The deepest subtrees listed (1: the root's children). Default 2. */
  depth?: number;
  /** Subtrees and churn rows listed at most. Default 20. */
  top?: number;
  /** The agent view's state budget (UTF-8 bytes of tree text). Default 65536, as the agent's. */
  maxStateBytes?: number;
  /** Tools an agent is offered. Default 128, as the agent's. */
  maxTools?: number;
  /** The subscription to profile. Default: the first (the whole tree). */
  sub?: string;
}

/** Patches, ops, bytes of the ops and no-op writes (a value replaced by the same value). */
export interface ProfileTraffic {
  patches: number;
  ops: number;
  bytes: number;
  noops: number;
}

export interface ProfileMeasures {
  /** Tokens of the subtree's lines of the agent's tree text. */
  tokens: number;
  /** Characters (code points) of the same text. */
  chars: number;
  /** Tokens of the tool definitions of the subtree's affordances. */
  toolTokens: number;
  /** Actions (tools) in the subtree. */
  tools: number;
  /** UTF-8 bytes of the subtree's compact JSON. */
  bytes: number;
  /** Nodes in the subtree, itself included. */
  nodes: number;
  /** The whole session. */
  traffic: ProfileTraffic;
  /** The last windowSeconds, or within the range. */
  window: ProfileTraffic;
  /** window per second. */
  rate: ProfileTraffic;
}

export interface ProfileSubtree extends ProfileMeasures {
  path: string;
  id: string;
  type: string;
  depth: number;
  parent: string | null;
  salience: number | null;
  /** The provider pages its children (meta.window or meta.total_children). */
  windowed: boolean;
  /** Its line fits the agent view's state budget. */
  inView: boolean;
  /** Its share of the total of the `by` measure (traffic: of the window's ops). */
  share: number;
}

export interface ProfileChurnRow extends ProfileTraffic {
  path: string;
  type: string;
  /** ops a second over the window. */
  perSecond: number;
  /** noops / ops. */
  noopShare: number;
}

export interface ProfileHint {
  kind: 'noop-writes' | 'unwindowed-collection' | 'low-salience-cost' | 'state-budget-cut' | 'tools-cut';
  path: string | null;
  text: string;
}

export interface ProfileBudgets {
  maxStateBytes: number;
  /** UTF-8 bytes of the whole tree text, a "\n" after each line. */
  stateBytes: number;
  viewNodes: number;
  cutNodes: number;
  tokensInView: number;
  tokensCut: number;
  maxTools: number;
  tools: number;
  toolsOffered: number;
  toolTokensOffered: number;
  toolTokensCut: number;
}

/** client.profile()'s answer, and `slop-inspector profile --json`. */
export interface ProfileReport {
  format: 'slop-inspector-profile';
  version: 1;
  sub: string;
  serial: number;
  /** The last sample's time (epoch ms). */
  at: number;
  /** The span sampled. */
  seconds: number;
  windowSeconds: number;
  /** 'o200k_base (gpt-tokenizer 4.0.0)' */
  tokenizer: string;
  /** Every text counted (else the token counts are partial). */
  complete: boolean;
  counting: { done: number; total: number };
  by: ProfileMeasure;
  depth: number;
  range: [number, number] | null;
  totals: ProfileMeasures;
  budgets: ProfileBudgets;
  /** The subtrees down to `depth`, the largest first by `by`. */
  subtrees: ProfileSubtree[];
  /** The nodes written most (ops on the node itself). */
  churn: ProfileChurnRow[];
  hints: ProfileHint[];
}
