// Types of js-glue/node/provider.js: the provider object of slop-inspector/playwright and
// slop-inspector/node. Every method reads the one core mirror the extension's panel shows.

/**
 * A number a JavaScript number cannot hold: an integer beyond 2^53 such as a 64-bit id. It is
 * JSON.rawJSON(digits) where Node has it (22 and later; JSON.stringify writes the digits), and a
 * frozen object of the same shape on Node 20. Read `.rawJSON` for the digits either way; write
 * JSON with `stringifyExact` (exported by slop-inspector/node and slop-inspector/playwright).
 */
export interface ExactNumber {
  readonly rawJSON: string;
}

/** Whether v is an ExactNumber this library returned. */
export function isExactNumber(v: unknown): v is ExactNumber;

/**
 * JSON text of a value as JSON.stringify's, but every ExactNumber written as its digits (or, for
 * values read with `numbers: 'verbatim'`, as the provider wrote the number) and -0 as -0.
 */
export function stringifyExact(value: unknown, space?: number): string;

/**
 * A SLOP node as the provider sent it: strings exactly; numbers as JavaScript numbers of the same
 * value (-0 stays -0), except integers a double cannot hold, which are ExactNumbers.
 */
export interface SlopNode {
  id: string;
  type: string;
  properties?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  affordances?: SlopAffordance[];
  content_ref?: Record<string, unknown>;
  children?: SlopNode[];
}

export interface SlopAffordance {
  action: string;
  label?: string;
  description?: string;
  params?: Record<string, unknown>;
  dangerous?: boolean;
  idempotent?: boolean;
  estimate?: string;
}

/** A node without its children, plus its absolute path and its children's ids in order. */
export interface SlopNodeView extends Omit<SlopNode, 'children'> {
  path: string;
  child_ids: string[];
  /** On a windowed collection: children the provider has beyond those present. */
  more?: number;
  next_window?: [number, number];
}

/** The extension's summary of one provider connection. Never contains a token. */
export interface ProviderInfo {
  key: string;
  transport: { type: 'ws' | 'postmessage'; url?: string };
  status: 'discovered' | 'pending-approval' | 'denied' | 'connecting' | 'connected' | 'reconnecting' |
    'auth-failed' | 'unreachable' | 'error';
  message: string;
  /** Connected and the first subscription's mirror is what the provider holds now. */
  live: boolean;
  sync: { state: string; reason: { code: string; message: string } | null; retryAt: number | null };
  /** The reconnect policy's last decision (js-glue/reconnect-policy.js), null before the first close. */
  reconnect: { mode: 'restart' | 'crash-loop' | 'down'; delay: number; closedAt: number; seq: number; settled?: boolean } | null;
  provider: { id: string; name: string; slop_version: string } | null;
  capabilities: string[];
  approvalKey: string | null;
  subscriptions: { sub: string; path: string; state: string; version: number; nodes: number }[];
  nodes: number;
  [field: string]: unknown;
}

/** A core event (slop_core.h, SLOP_OUT_EVENT) with the time it was seen, `at` (ms since the epoch). */
export interface SlopEvent {
  event: 'hello' | 'snapshot' | 'provider_changed' | 'resync' | 'query' | 'result' | 'task' | 'error' |
    'timeout' | 'closed' | 'provider_event' | 'protocol_error';
  at: number;
  [field: string]: unknown;
}

/** One frame of the log, in or out (text cut at the log's limit). */
export interface SlopFrame {
  dir: 'in' | 'out';
  t: number;
  type: string;
  size: number;
  text: string;
  truncated: boolean;
}

export interface InvokeResult {
  status: 'ok' | 'accepted';
  data: unknown;
  /** For status "accepted": the task node's id. */
  taskId: string | null;
  requestId: string;
}

export interface SubscribeOptions {
  path?: string;
  depth?: number;
  max_nodes?: number;
  filter?: { types?: string[]; min_salience?: number };
}

export interface QueryOptions extends SubscribeOptions {
  window?: [number, number];
}

/** A rule the core checks (slop_core.h, slop_consumer_conformance). */
export interface ConformanceRule {
  /** Stable id, e.g. "meta-salience": what allow lists name. */
  id: string;
  severity: 'MUST' | 'SHOULD';
  /** Where in the spec. */
  spec: string;
  /** The rule in one line, for a provider's author. */
  text: string;
  /** Judged as frames arrive, or over the mirror when the report is made. */
  checked: 'frames' | 'mirror';
}

/** A rule broken at a path: how often, and the first frame that showed it. */
export interface ConformanceFinding {
  rule: string;
  severity: 'MUST' | 'SHOULD';
  count: number;
  path?: string;
  detail: string;
  /** The first frame (cut at 400 bytes), for frame rules. */
  frame?: string;
  version?: number;
  seen: 'frame' | 'mirror';
}

export interface ConformanceReport {
  /** False while the provider is not live (no hello taken, a subscription not mirrored). */
  live: boolean;
  /** Why it is not live, when it is not: the hello, or the first subscription and its reason. */
  not_live?: string;
  frames: number;
  mirrors: number;
  nodes: number;
  must: number;
  should: number;
  /** Findings past the 512 kept. */
  dropped: number;
  rules: ConformanceRule[];
  findings: ConformanceFinding[];
}

/** The outcome of a drift check. */
export interface DriftResult {
  event: 'drift';
  id: string;
  sub: string;
  status: 'same' | 'differs' | 'inconclusive';
  version?: number;
  /** Differences in all (at most 20 are listed). */
  count?: number;
  /** JSON Pointer paths ("/inbox/m7/properties/unread"); a side is absent where the value is. */
  differences?: { path: string; mirror?: unknown; provider?: unknown }[];
  message?: string;
}

export interface StableTextOptions {
  /** Fields left out, as "properties.<key>" or "meta.<key>". Default: ["meta.changed"]. */
  ignore?: string[];
  /** Fields printed as a fixed text, e.g. {"properties.updated_at": "<time>"}. */
  replace?: Record<string, string>;
}

export type SlopTestCodeName = 'timeout' | 'no_page' | 'no_provider' | 'ambiguous' | 'pending_approval' | 'denied' |
  'auth_failed' | 'unreachable' | 'protocol_error' | 'not_found' | 'dangerous' | 'invoke_failed' | 'query_failed' | 'closed';

export const SlopTestCode: Readonly<{
  TIMEOUT: 'timeout'; NO_PAGE: 'no_page'; NO_PROVIDER: 'no_provider'; AMBIGUOUS: 'ambiguous';
  PENDING_APPROVAL: 'pending_approval'; DENIED: 'denied'; AUTH_FAILED: 'auth_failed'; UNREACHABLE: 'unreachable';
  PROTOCOL_ERROR: 'protocol_error'; NOT_FOUND: 'not_found'; DANGEROUS: 'dangerous'; INVOKE_FAILED: 'invoke_failed';
  QUERY_FAILED: 'query_failed'; CLOSED: 'closed';
}>;

/**
 * Every failure of the library. `message` names the provider and the path and, for a missing or
 * unexpected node, shows the nearest existing part of the tree.
 */
export class SlopTestError extends Error {
  /** `details` become fields of the error (path, status, event...). */
  constructor(code: SlopTestCodeName, message: string, details?: Record<string, unknown>);
  name: 'SlopTestError';
  code: SlopTestCodeName;
  /** The node path the failure is about, when there is one. */
  path?: string;
  /** The provider status that stopped a wait (auth-failed, unreachable...). */
  status?: string;
  /** For invoke_failed / query_failed: the provider's error code. */
  providerCode?: string | null;
  /** The core event that ended the request (result with an error, error, timeout, closed). */
  event?: SlopEvent;
  /** A provider that answered but never went live: the core's report (the rule it broke, not_live). */
  conformance?: ConformanceReport;
}

/** A stable, diff-friendly text of a tree for snapshot files (sorted fields, volatile ones left out). */
export function stableText(tree: SlopNode | null, options?: StableTextOptions): string;

/** Deep partial match: every key of `want` is in `have` with an equal value (arrays exactly). */
export function matchesPartial(have: unknown, want: unknown): boolean;

/** A provider's restart: a new process answered, its version below the mirror's. */
export interface SlopRestart {
  event: 'restarted';
  /** The subscription re-based on the new process's tree. */
  sub: string;
  /** The new process's version. */
  version: number;
  /** The mirror's version before (null when not known). */
  previousVersion: number | null;
  /** When it was seen (ms since the epoch). */
  at?: number;
}

export class SlopProvider {
  /**
   * Made by slop.provider() and connect(), not by user code: `call(method, ...args)` runs the
   * method of js-glue/provider-api.js where the connection lives.
   */
  constructor(call: (method: string, ...args: unknown[]) => Promise<any>, label: string);
  /** How failure messages name this provider, e.g. `provider "Acme Mail" (ws://…)`. */
  readonly label: string;
  /** The connection's status and provider identity. */
  info(): Promise<ProviderInfo>;
  /** The mirrored subtree at path (default "/") cut at depth (-1, the default: all); null if absent. */
  tree(path?: string, depth?: number, options?: { sub?: string }): Promise<SlopNode | null>;
  /** The node view at path, or null if there is no such node. */
  node(path: string, options?: { sub?: string }): Promise<SlopNodeView | null>;
  /**
   * The core's canonical tree text, one line per node, as the panel's "copy as text"; with path or depth, of the node at path and depth levels below
   * it (-1: all), a cut node saying how many children it has; null when there is no node at path.
   */
  text(options?: { sub?: string }): Promise<string>;
  text(options: { sub?: string; path?: string; depth?: number }): Promise<string | null>;
  /** stableText() of the subtree at path: for toMatchSnapshot. */
  snapshot(path?: string, options?: StableTextOptions & { sub?: string }): Promise<string>;
  /** The affordances as LLM tools (the agent view); maxTools: the most salient that many (meta.salience, then tree order). */
  tools(options?: { sub?: string; maxTools?: number }): Promise<{ tools: { name: string; description: string; parameters: object; dangerous: boolean }[];
    resolve: Record<string, { path: string; action: string }>; total: number }>;
  /** Core events other than patches (protocol errors, resyncs, results...), oldest first; bounded. */
  events(options?: { since?: number }): Promise<SlopEvent[]>;
  /**
   * The provider's restarts seen since `since` (a new process whose version went back), oldest
   * first: what the CLI's watch says as "provider restarted: version 3 after 380".
   */
  restarts(options?: { since?: number }): Promise<SlopRestart[]>;
  /**
   * Resolves with the first restart after `since` (default: now; take Date.now() before you
   * restart the provider) once the mirror holds the new tree; rejects with a SlopTestError
   * "timeout" (default 10000 ms).
   */
  waitForRestart(options?: { since?: number; timeout?: number; interval?: number }): Promise<SlopRestart>;
  /** The frame log, oldest first; bounded. */
  frames(): Promise<SlopFrame[]>;
  /**
   * Polls the node at path until predicate(node) is truthy (default: the node exists) and returns
   * it; the predicate sees null while the node is absent. Throws SlopTestError "timeout" with the
   * nearest part of the tree. Default timeout 5000 ms.
   */
  waitFor(path: string, predicate?: (node: SlopNodeView | null) => unknown,
    options?: { timeout?: number; interval?: number; sub?: string }): Promise<SlopNodeView | null>;
  /**
   * Invokes an affordance and waits for its result. Throws SlopTestError: "not_found" (no node or
   * no such affordance), "dangerous" (a dangerous affordance without confirmDangerous: nothing is
   * sent), "invoke_failed" (params outside the schema, or the provider's error result), "timeout"
   * (no result within the core's request timeout), "closed" (the connection went first).
   */
  invoke(path: string, action: string, params?: unknown, options?: { confirmDangerous?: boolean }): Promise<InvokeResult>;
  /** A one-off read of the provider's state (not mirrored): the core's "query" event. Throws "query_failed". */
  query(options?: QueryOptions): Promise<{ event: 'query'; id: string; path: string; version: number; tree: SlopNode;
    more?: number; next_window?: [number, number] }>;
  /** Opens another subscription; returns its id, for the `sub` option of the readers. */
  subscribe(options?: SubscribeOptions): Promise<string>;
  unsubscribe(sub: string): Promise<true>;
  /** A subscription's state (live, stale, ...), version and node count; null if unknown. */
  subscription(sub?: string): Promise<{ sub: string; path: string; state: string; version: number; nodes: number } | null>;
  /**
   * Where this provider breaks SLOP so far: every rule the core checks, and each finding. Frame
   * rules cover every frame since the connection (and reconnects); tree rules the mirror now.
   */
  conformance(): Promise<ConformanceReport>;
  /**
   * Asks the provider for the subscribed subtree (same path, depth, max_nodes, filter) and
   * compares it with the mirror at the same version, asking again while patches are in flight.
   * Each difference is also a "drift" conformance finding. Throws "query_failed", "timeout", "closed".
   */
  checkDrift(options?: { sub?: string }): Promise<DriftResult>;
  /** A SlopTestError naming this provider and path, with the nearest part of the tree. */
  failure(code: SlopTestCodeName, message: string, path: string): Promise<SlopTestError>;
}
