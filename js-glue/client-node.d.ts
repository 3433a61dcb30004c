// slop-inspector/node: a SLOP consumer in Node, on the extension's own wasm core and connection
// code, for providers that have no page and for scripts.

import { SlopProvider, SlopEvent } from './provider-node.js';

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
