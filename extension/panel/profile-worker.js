// profile-worker.js: the Cost tab's counting, off the panel's main thread (a module Web Worker the
// tab starts when it is first shown). It keeps a StateProfile (js-glue/state-profile.js), ingests
// each sample the tab asked the service worker for (ui/profile: the core's profile as JSON text,
// parsed here), counts the tokens of the texts not counted yet in slices of 8 ms with the o200k
// tokenizer, yielding between slices so that the next sample and the tab's view changes get in,
// and posts back what the tab draws.
//
// The tab → this worker (ToProfiler in shared/messages.js):
//   SAMPLE {seq, since, answer}   Request.PROFILE's answer ({profile, tools, offered, maxStateBytes,
//                              maxTools, at}) to a request that asked with `since`
//   VIEW {view}                what to report: {by, range, maxNodes, top, depth}
//   RESET {seq}                another provider or subscription: drop everything; later samples carry seq
// This worker → the tab (FromProfiler.STATE): a WorkerState (below), after each sample, every
// PROGRESS_MS while counting, once counting ends and after a view change.

import { StateProfile } from '../../js-glue/state-profile.js';
import { parseExact } from '../../js-glue/exact-json.js';
import { ToProfiler, FromProfiler, catalogued } from '../shared/messages.js';
import { countTokens } from '/vendor/gpt-tokenizer/esm/encoding/o200k_base.js';

/** As js-glue/node/tokenizer.js names it (the version pinned in package.json, vendored by build.sh). */
export const TOKENIZER = 'o200k_base (gpt-tokenizer 4.0.0)';
const SLICE_MS = 8;
/** No special token: "<|endoftext|>" in a provider's string is text, counted as a model's API counts
 * it (as js-glue/node/tokenizer.js does in Node, so that the tab and `slop-inspector profile` agree). */
const AS_TEXT = Object.freeze({ disallowedSpecial: new Set(), allowedSpecial: new Set() });
/** While counting, the tab hears how far it got this often (with the numbers so far, marked incomplete). */
const PROGRESS_MS = 400;

/**
 * @typedef {object} WorkerState   what the tab draws
 * @property {typeof FromProfiler.STATE} type
 * @property {number} seq          the tab's reset count this answers (older ones are dropped)
 * @property {string|null} sub     the subscription measured
 * @property {number} since        the serial to ask with next time
 * @property {boolean} needsTools  the next sample should carry the tools
 * @property {any} report          ProfileReport (js-glue/state-profile.js)
 * @property {any} hierarchy       HNode
 * @property {any} timeline        {at, patches, ops, bytes, noops}
 * @property {{done: number, total: number}} counting
 * @property {string|null} restarted   why the numbers started over in this sample (a new subscription, the core's serial went back)
 * @property {string|null} error
 */

/** @type {any} */
let profile = null;
let seq = 0;
let sub = /** @type {string|null} */ (null);
let serial = -1;
/** @type {{by: string, range: [number, number]|null, maxNodes: number, top: number, depth: number}} */
/** maxNodes: the map draws the largest 800 (the rest merged per parent: a 10,000-node tree's
 * smallest are under a pixel wide at any width a side pane has). */
let view = { by: 'tokens', range: null, maxNodes: 800, top: 20, depth: 2 };
let lastPost = 0;
/** @type {ReturnType<typeof setTimeout>|0} */
let timer = 0;

const scope = /** @type {any} */ (globalThis);

function engine(answer) {
  return new StateProfile({
    countTokens: (/** @type {string} */ text) => countTokens(text, /** @type {any} */ (AS_TEXT)),
    tokenizer: TOKENIZER,
    maxStateBytes: answer.maxStateBytes,
    maxTools: answer.maxTools,
    windowSeconds: 10,
  });
}

/** @param {string|null} restarted @param {string|null} [error] */
function post(restarted = null, error = null) {
  lastPost = Date.now();
  if (!profile) {
    send({ type: FromProfiler.STATE, seq, sub, since: 0, needsTools: true, report: null, hierarchy: null, timeline: null,
      counting: { done: 0, total: 0 }, restarted, error });
    return;
  }
  /** @type {WorkerState} */
  let msg;
  try {
    msg = {
      type: FromProfiler.STATE, seq, sub, since: profile.since, needsTools: profile.needsTools,
      report: profile.report({ by: view.by, depth: view.depth, top: view.top, range: view.range }),
      hierarchy: profile.hierarchy({ by: view.by, maxNodes: view.maxNodes, range: view.range }),
      timeline: profile.timeline(),
      counting: { ...profile.counting },
      restarted, error,
    };
  } catch (e) {
    msg = { type: FromProfiler.STATE, seq, sub, since: profile.since, needsTools: true, report: null, hierarchy: null, timeline: null,
      counting: { done: 0, total: 0 }, restarted, error: `The profile failed: ${/** @type {Error} */ (e).message}` };
  }
  send(msg);
}

/** @param {WorkerState} msg */
function send(msg) {
  if (catalogued(msg, FromProfiler)) scope.postMessage(msg);
}

/** Counts a slice, posts progress now and then, and yields before the next slice. */
function countSlice() {
  timer = 0;
  if (!profile) return;
  const done = profile.countPending({ budgetMs: SLICE_MS });
  if (done) {
    post();
    return;
  }
  if (Date.now() - lastPost >= PROGRESS_MS) post();
  timer = setTimeout(countSlice, 0);
}

function count() {
  if (!timer) timer = setTimeout(countSlice, 0);
}

/** @param {any} answer @param {number} asked  the `since` the tab asked with */
function ingest(answer, asked) {
  if (!answer?.profile) {
    // No mirror: the provider went away, or its subscription is gone. Nothing half is kept.
    reset();
    post(null, 'gone');
    return;
  }
  let parsed;
  try {
    parsed = JSON.parse(answer.profile);
  } catch (e) {
    post(null, `The core's profile did not parse: ${/** @type {Error} */ (e).message}`);
    return;
  }
  let restarted = null;
  if (profile && parsed.sub !== sub) restarted = 'another subscription';
  else if (profile && parsed.serial < serial) restarted = 'the core started over';
  if (restarted) {
    reset();
    // Texts the core left out as unchanged since `asked` are not ours any more: ask again from 0.
    if (asked > 0) return post(restarted);
  }
  if (!profile) profile = engine(answer);
  sub = parsed.sub;
  serial = parsed.serial;
  profile.ingest({
    at: answer.at ?? Date.now(),
    profile: parsed,
    // Exactly as the core wrote them: a tool's text is counted, and 1.50 must stay 1.50.
    tools: answer.tools ? parseExact(answer.tools) : undefined,
    offered: answer.offered ? parseExact(answer.offered) : undefined,
    leftOut: answer.leftOut ?? null,
  });
  // What a patch or two changed is counted at once: the tab hears one complete state per sample.
  if (profile.countPending({ budgetMs: SLICE_MS })) return post(restarted);
  post(restarted);
  count();
}

function reset() {
  clearTimeout(timer);
  timer = 0;
  profile?.reset?.();
  profile = null;
  sub = null;
  serial = -1;
}

scope.onmessage = (/** @type {MessageEvent} */ e) => {
  const m = e.data;
  if (!catalogued(m, ToProfiler)) return;
  if (m.type === ToProfiler.SAMPLE) {
    if (m.seq !== seq) return; // sent before a reset the tab asked for
    ingest(m.answer, m.since ?? 0);
  } else if (m.type === ToProfiler.VIEW) {
    view = { ...view, ...m.view };
    if (profile) post();
  } else if (m.type === ToProfiler.RESET) {
    seq = m.seq;
    reset();
  }
};
