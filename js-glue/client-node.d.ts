// slop-inspector/node: a SLOP consumer in Node, on the extension's own wasm core and connection
// code, for providers that have no page and for scripts.

import { SlopProvider, SlopEvent, ConformanceReport } from './provider-node.js';

export * from './provider-node.js';

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
}

export class SlopClient extends SlopProvider {
  /** The ws:// URL this client connects to. */
  readonly url: string;
  /** Calls fn for every core event from now on, patches included; returns a function that stops it. */
  onEvent(fn: (event: SlopEvent | ({ event: 'patch'; version: number; ops: number; changed: string[];
    added: string[]; removed: string[] } & Record<string, unknown>)) => void): () => void;
  /** Unsubscribes, closes the WebSocket and frees the core's consumer. Idempotent. */
  close(): void;
}

/**
 * Connects to a WebSocket provider and resolves once the whole tree is mirrored and live.
 * Rejects with SlopTestError: "auth_failed" (refused handshake: token or Origin), "unreachable"
 * (nothing answers, or not a ws:// URL), "protocol_error" (a fatal protocol error, with the
 * core's message), "timeout" (connected but not live in time).
 */
export function connect(url: string, options?: ConnectOptions): Promise<SlopClient>;

export interface CheckOptions {
  token?: string | null;
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
export function checkConformance(url: string, options?: CheckOptions): Promise<{
  report: ConformanceReport;
  provider: { id: string; name: string; slop_version?: string; capabilities: string[] } | null;
  drift?: SlopEvent;
  invoke?: { path: string; action: string; requestId: string; event: SlopEvent };
}>;
