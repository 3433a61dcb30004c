// playground-text.js: how the Playground says things: sizes, times and token counts, a call's
// arguments and JSON as card text, a call's status, why it was refused, a run's outcome. Moved out
// of playground-view.js as they were; the view and the pane (outcomeText) import them.

import { parseExact } from '../../../js-glue/exact-json.js';

/** Numbers as the Playground writes them ("12,345"). */
export const nf = new Intl.NumberFormat('en-US');
/** JSON shown in a card is cut to this many characters (the export has it whole). */
const JSON_TEXT_MAX = 20000;

/** @param {number|null|undefined} n @returns {string} */
export function bytesText(n) {
  if (!Number.isFinite(n)) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** @param {number|null|undefined} ms @returns {string} */
export function msText(ms) {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/** "3.1k" for a token estimate. @param {number} n */
export function tokensShort(n) {
  if (!Number.isFinite(n)) return '?';
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
}

export const plural = (n, one, many = `${one}s`) => `${nf.format(n)} ${n === 1 ? one : many}`;

/**
 * A call's arguments to show: the model's own text, parsed keeping an id's digits (the parsed
 * copy in the trace has crossed a port as doubles), else that copy.
 * @param {{arguments?: unknown, parsed?: unknown}} tc
 */
export function argsValue(tc) {
  try {
    if (typeof tc.arguments === 'string' && tc.arguments.trim() !== '') return parseExact(tc.arguments);
  } catch { /* not JSON: the parsed copy, or nothing */ }
  return tc.parsed;
}

/** JSON as text for a card: on one line when short, else indented; cut when long. @param {unknown} v */
export function jsonText(v) {
  let s;
  try {
    s = v === undefined ? 'undefined' : JSON.stringify(v);
    if (s !== undefined && s.length > 72) s = JSON.stringify(v, null, 2);
  } catch {
    s = String(v);
  }
  if (s === undefined) s = String(v);
  return s.length > JSON_TEXT_MAX ? `${s.slice(0, JSON_TEXT_MAX)}\n… (${nf.format(s.length - JSON_TEXT_MAX)} more characters: export the session for the whole text)` : s;
}

/**
 * What a call came to, as one word for its pill: ok, error, accepted (the provider's answer, or
 * the core's timeout / closed), declined (the user), refused (not sent), pending (sent, the run
 * stopped before its answer), not-run (the turn ended before it).
 * @param {object|null} call @returns {string}
 */
export function callStatus(call) {
  if (!call) return 'not-run';
  if (call.refused) return /^the user declined/.test(call.refused) ? 'declined' : 'refused';
  if (call.pending) return 'pending';
  const r = call.result;
  if (!r) return 'not-run';
  return String(r.status ?? r.event ?? 'ok');
}

/** Why a call was refused, in a sentence for the card. @param {string} refused */
export function refusedText(refused) {
  if (refused === 'unknown tool') return 'Refused: no tool by that name was offered to the model. Nothing was done; the model was told.';
  if (/^the user declined/.test(refused)) return 'Declined: you chose Cancel. Nothing was sent; the model was told it was refused.';
  if (/^not sent: /.test(refused)) return `Not sent: ${refused.slice(10)}. The model was told.`;
  if (/^malformed arguments: /.test(refused)) return `Refused: malformed arguments (${refused.slice(21)}). Nothing was sent; the model was told.`;
  if (/^params do not fit the schema: /.test(refused)) return `Refused: the arguments do not fit the schema: ${refused.slice(31)}. Nothing was sent; the model was told.`;
  return `Refused: ${refused}. Nothing was sent; the model was told.`;
}

/** The outcome of a run in words: {title, detail}. @param {object} trace */
export function outcomeText(trace) {
  const turns = trace.turns?.length ?? 0;
  const tokens = (trace.turns ?? []).reduce((n, t) => n + (t.usage?.totalTokens ?? 0), 0);
  const calls = (trace.turns ?? []).reduce((n, t) => n + (t.calls?.length ?? 0), 0);
  const totals = [plural(turns, 'turn'), plural(calls, 'tool call'), tokens ? `${nf.format(tokens)} tokens` : null].filter(Boolean).join(' · ');
  switch (trace.outcome) {
    case 'answered': return { title: 'Answered', detail: totals };
    case 'step-limit': return { title: 'Step limit reached', detail: `The model still wanted to call tools after ${plural(trace.maxSteps ?? turns, 'step')}; raise the limit to let it go on. ${totals}` };
    case 'stopped': return { title: 'Stopped', detail: `You stopped the run: the model's request was cancelled and no further call was sent. ${totals}` };
    case 'error': return { title: 'Error', detail: trace.error?.message ?? 'The run failed.' };
    default: return { title: String(trace.outcome ?? 'Ended'), detail: totals };
  }
}
