// slop-inspector/playwright: SLOP in your own Playwright tests (Chromium only: Playwright's
// Firefox cannot load an extension). Works with @playwright/test and with playwright-core.

import type { BrowserContext, BrowserType, Page, Worker } from 'playwright-core';
import type { TestType } from '@playwright/test';
import { SlopProvider, ProviderInfo } from './provider.js';

export * from './provider.js';

/** The unpacked extension's folder inside the installed package. */
export const extensionPath: string;

/** $CHROMIUM, else /usr/bin/chromium when it exists, else undefined (Playwright's own Chromium). */
export function defaultExecutablePath(): string | undefined;

/** The Chromium arguments that load the extension, to add to your own launchPersistentContext. */
export function slopLaunchArgs(extDir?: string): string[];

export interface SlopSetup {
  /** Tokens by provider origin ("ws://localhost:3737"): stored as the options page does, never printed. */
  tokens?: Record<string, string | undefined>;
  /** Cross-origin (page, provider) pairs to approve up front, as "PAGE_ORIGIN -> TARGET" (ProviderInfo.approvalKey). */
  approvals?: string[];
}

export interface LaunchOptions extends SlopSetup {
  /** Playwright's chromium (default: playwright-core's). */
  chromium?: BrowserType;
  /** Default true (Chromium's headless mode loads extensions). */
  headless?: boolean;
  /** Default: defaultExecutablePath(). */
  executablePath?: string;
  /** Extra Chromium arguments. */
  args?: string[];
  /** A profile folder to keep; default a temporary one, removed when the context closes. */
  userDataDir?: string;
  /** Any other option of launchPersistentContext. */
  [option: string]: unknown;
}

/** A persistent Chromium context with the extension loaded, its core ready, tokens and approvals stored. */
export function launchWithSlop(options?: LaunchOptions): Promise<BrowserContext>;

/** Stores tokens and approvals in a context that has the extension. */
export function configureSlop(context: BrowserContext, setup: SlopSetup): Promise<void>;

/** The extension's running service worker (waits for one to start). */
export function currentWorker(context: BrowserContext, timeout?: number): Promise<Worker>;

/** worker.evaluate on the extension's current service worker, retried across a worker restart. */
export function workerEval<A, R>(context: BrowserContext, fn: (arg: A) => R | Promise<R>, arg?: A, timeout?: number): Promise<R>;

export interface ProviderSelector {
  /** The provider's id from its hello. */
  id?: string;
  /** The provider's name from its hello. */
  name?: string;
  /** Its WebSocket URL, or "postmessage". */
  url?: string;
  /** Default 15000 ms. */
  timeout?: number;
  /** Approve a cross-origin provider the page names, as a user would in the popup. */
  approve?: boolean;
}

export class Slop {
  constructor(context: BrowserContext);
  readonly context: BrowserContext;
  /** Every tab the extension knows, with its providers. */
  tabs(): Promise<{ tabId: number; pageUrl: string; problems: unknown[]; providers: ProviderInfo[] }[]>;
  /** The providers found on a page so far. */
  providers(page: Page): Promise<ProviderInfo[]>;
  /**
   * Waits until the page has a matching provider that is connected with a live mirror. Rejects
   * with SlopTestError: "no_page" (the extension has not seen the page), "no_provider" (none on
   * the page, or none matches: the message lists what is there), "ambiguous" (several match),
   * "pending_approval", "denied", "auth_failed", "unreachable", "protocol_error" (with the
   * core's message), "timeout" (still connecting, or the mirror not live).
   */
  provider(page: Page, selector?: ProviderSelector): Promise<SlopProvider>;
}

/**
 * Extends @playwright/test's `test`: `context` becomes a Chromium context with the extension,
 * and a `slop` fixture is added.
 *   const it = withSlop(test, { tokens: { 'ws://localhost:3737': process.env.SLOP_TOKEN } });
 */
export function withSlop<A extends {}, W extends {}>(test: TestType<A, W>, options?: LaunchOptions): TestType<A & { slop: Slop }, W>;

/** What a matcher returns to expect (Playwright's MatcherReturnType). */
export interface SlopMatcherResult {
  pass: boolean;
  message: () => string;
  name: string;
  expected?: unknown;
  actual?: unknown;
}

/**
 * For expect.extend(slopMatchers): the returned expect knows both matchers and their arguments.
 * Both retry until the timeout (expect's, or {timeout}):
 *   await expect(app).toHaveSlopNode('/inbox/msg-1', { properties: { unread: false } });
 *   await expect(app).toHaveAffordance('/inbox/msg-1', 'archive');
 *   await expect(app).toConformToSlop({ allow: ['node-type'] });
 * A failure's message names the provider and the path and shows the nearest part of the tree.
 */
export const slopMatchers: {
  /** The provider has a node at path, matching `partial` (a deep subset of its node view) if given. */
  toHaveSlopNode(received: SlopProvider, path: string, partial?: object, options?: { timeout?: number }): Promise<SlopMatcherResult>;
  /** The node at path offers the affordance. */
  toHaveAffordance(received: SlopProvider, path: string, action: string, options?: { timeout?: number }): Promise<SlopMatcherResult>;
  /**
   * No conformance finding but the rules in `allow` (with severity "MUST": MUST findings only).
   * The failure lists every finding with its rule, path and first frame. Not retried.
   */
  toConformToSlop(received: SlopProvider, options?: { allow?: string[]; severity?: 'MUST' | 'SHOULD' }): Promise<SlopMatcherResult>;
};
