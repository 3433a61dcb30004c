// test-writer.js: "Copy as test" (the History's Test menu, panel/parts/copy-as-test.js). A range
// of the History becomes a runnable node:test file: the recorded invokes in their order, each
// followed by assertions on what that invoke changed, with the provider's own digits. Pure: steps
// and the worker's diffs in, the test's text out; no DOM, no clock, no I/O.
//
// Two forms: "playwright" (slop-inspector/playwright: Chromium with the extension opens the page,
// any transport) and "node" (slop-inspector/node's connect(): a WebSocket provider's address only).
//
// Provider text reaches the code only as string literals (jsString) or `//` comments cleared of line
// breaks (comment): never spliced raw into code. Numbers a double would change (a 64-bit id, 1.50,
// -0) are written num('digits') and compared by exact decimal value in the generated test.

import { parseVerbatim, isExactNumber } from '../../js-glue/exact-json.js';

/** Assertions written after one invoke, at most; the rest are counted in a comment. */
export const MAX_ASSERTIONS = 40;
/** How long each assertion waits for the state (ms): a patch may come after the result. */
export const WAIT_MS = 5000;

/** @typedef {import('../service-worker/timeline.js').Step} Step */
/**
 * One invoke of the plan: the state before it is its own step's (the state when it was sent), the
 * state after it is step `to`'s (null: nothing recorded after it).
 * @typedef {{invoke: Step, result: Step|null, from: number, to: number|null}} PlannedInvoke
 */

/**
 * Which steps each invoke of the range is judged by, and which paths change on their own.
 * After an invoke: up to its result when patches came before the result (the usual order), else up
 * to the first patch after the result (a provider that answers first), never past the next invoke
 * or the range. Volatile: the paths of patches outside every such window (a clock, new mail);
 * the test asserts nothing on them, so it does not break on what the invoke did not do.
 * @param {Step[]} steps  the History's steps, oldest first
 * @param {{from: number, to: number}|null} [range]  step numbers, both kept (null: all)
 * @returns {{invokes: PlannedInvoke[], volatile: string[], volatileComplete: boolean}}
 *   volatileComplete: false when a patch touched more paths than its step lists
 */
export function planTest(steps, range = null) {
  const lo = range ? Math.min(range.from, range.to) : -Infinity;
  const hi = range ? Math.max(range.from, range.to) : Infinity;
  const claimed = new Set();
  /** @type {PlannedInvoke[]} */
  const invokes = [];
  steps.forEach((st, i) => {
    if (st.kind !== 'invoke' || st.step < lo || st.step > hi) return;
    const nextInvoke = steps.findIndex((x, j) => j > i && x.kind === 'invoke');
    const stop = nextInvoke < 0 ? steps.length : nextInvoke; // exclusive
    // Results come in the order of their invokes for one (path, action): the first unclaimed one.
    const r = steps.findIndex((x, j) => j > i && x.kind === 'result' && x.path === st.path && x.action === st.action && !claimed.has(x.step));
    if (r >= 0) claimed.add(steps[r].step);
    const result = r >= 0 ? steps[r] : null;
    let end = -1;
    if (r >= 0 && steps[r].step <= hi) {
      const patchBefore = steps.slice(i + 1, r + 1).some((x) => x.kind === 'patch');
      const after = patchBefore ? -1 : steps.findIndex((x, j) => j > r && j < stop && x.kind === 'patch' && x.step <= hi);
      end = patchBefore ? r : after >= 0 ? after : r;
    } else {
      // No result in the range: what came before the next invoke.
      for (let j = i + 1; j < stop && steps[j].step <= hi; j++) end = j;
    }
    invokes.push({ invoke: st, result, from: st.step, to: end > i ? steps[end].step : null });
  });
  const volatile = new Set();
  let volatileComplete = true;
  for (const st of steps) {
    if (st.kind !== 'patch') continue;
    if (invokes.some((w) => w.to !== null && st.step > w.from && st.step <= w.to)) continue;
    for (const p of st.paths ?? []) volatile.add(p);
    if ((st.pathCount ?? 0) > (st.paths?.length ?? 0)) volatileComplete = false;
  }
  return { invokes, volatile: [...volatile].sort(), volatileComplete };
}

// ------------------------------------------------------------------------------ literals

/**
 * A JavaScript string literal of any string: JSON.stringify's escapes, in single quotes (the JSON
 * texts it holds read better), U+2028 and U+2029 escaped too.
 * @param {string} s @returns {string}
 */
export function jsString(s) {
  const body = JSON.stringify(String(s)).slice(1, -1)
    .replace(/\\(.)/gs, (m, c) => (c === '"' ? '"' : m))
    .replace(/'/g, "\\'")
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `'${body}'`;
}

/** Provider text inside a `//` comment: one line, no line terminators. @param {unknown} s */
export function comment(s, max = 160) {
  const t = String(s).replace(/[\r\n\u2028\u2029]+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** An object literal's key: bare when it can be, `['__proto__']` (a literal's own key, not the prototype). @param {string} k */
function keySource(k) {
  if (k === '__proto__') return `[${jsString(k)}]`;
  return IDENT.test(k) ? k : jsString(k);
}

/**
 * A value as JavaScript source: numbers JavaScript writes back the same as plain literals, the
 * others (ExactNumbers from a verbatim read, -0) as num('digits'); undefined for "absent".
 * @param {unknown} v @returns {string}
 */
export function valueSource(v) {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return jsString(v);
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return "num('-0')";
    if (!Number.isFinite(v)) throw new Error(`not a JSON number: ${v}`);
    return String(v);
  }
  if (isExactNumber(v)) return `num(${jsString(/** @type {{rawJSON: string}} */ (v).rawJSON)})`;
  if (Array.isArray(v)) return `[${v.map(valueSource).join(', ')}]`;
  if (typeof v === 'object') {
    const parts = Object.entries(v).map(([k, x]) => `${keySource(k)}: ${valueSource(x)}`);
    return parts.length ? `{ ${parts.join(', ')} }` : '{}';
  }
  throw new Error(`not a JSON value: ${typeof v}`);
}

// --------------------------------------------------------------------------- assertions

/**
 * @typedef {object} InvokeRecord   one invoke as the panel gathered it
 * @property {number} step
 * @property {string} path
 * @property {string} action
 * @property {string} [paramsText]   the params as the JSON text sent (timeline.js invoked)
 * @property {string|null} [status]  its result: ok | accepted | error (null: none recorded)
 * @property {string} [message]      an error result's message
 * @property {boolean} [dangerous]   the affordance is dangerous (the test confirms it, as the user did)
 * @property {{added: any[], removed: any[], changed: any[]}|null} diff  the worker's diff from the
 *   invoke's step to the step after it (timeline-queries.js diffSteps), or null
 */

/** A view with the provider's numbers (its `exact` text, node-views.js). @param {any} v */
const verbatim = (v) => (typeof v?.exact === 'string' ? parseVerbatim(v.exact) : v);

/** A changed field's new value with the provider's digits (FieldChange afterText). @param {{after: any, afterText?: string}} fc */
const afterValue = (fc) => (typeof fc.afterText === 'string' ? parseVerbatim(fc.afterText) : fc.after);

/**
 * What to assert after one invoke: [{path, want}] (want null: the node is gone; else {type?,
 * properties?, affordances?}), the paths left out as volatile, and how many more were cut.
 * @param {InvokeRecord['diff']} diff @param {Set<string>} volatile
 */
export function assertionsOf(diff, volatile) {
  /** @type {{path: string, want: {type?: string, properties?: Record<string, unknown>, affordances?: Record<string, boolean>}|null}[]} */
  const out = [];
  const skipped = [];
  if (!diff) return { out, skipped, more: 0 };
  const under = (p) => volatile.has(p);
  for (const v of diff.removed ?? []) {
    if (under(v.path)) skipped.push(v.path);
    else out.push({ path: v.path, want: null });
  }
  for (const raw of diff.added ?? []) {
    const v = verbatim(raw);
    if (under(v.path)) { skipped.push(v.path); continue; }
    const want = { type: v.type };
    if (v.properties && Object.keys(v.properties).length) want.properties = v.properties;
    if (v.affordances?.length) want.affordances = Object.fromEntries(v.affordances.map((a) => [a.action, true]));
    out.push({ path: v.path, want });
  }
  for (const c of diff.changed ?? []) {
    if (under(c.path)) { skipped.push(c.path); continue; }
    const d = c.diff;
    const want = {};
    if (d.type) want.type = d.type.after;
    if (d.properties?.length) want.properties = Object.fromEntries(d.properties.map((fc) => [fc.key, afterValue(fc)]));
    const affs = (d.affordances ?? []).filter((a) => a.change !== 'changed');
    if (affs.length) want.affordances = Object.fromEntries(affs.map((a) => [a.action, a.change === 'added']));
    // meta (salience, a changed-at time) and content references are left out: they follow the clock.
    if (Object.keys(want).length) out.push({ path: c.path, want });
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const more = Math.max(0, out.length - MAX_ASSERTIONS);
  return { out: out.slice(0, MAX_ASSERTIONS), skipped: skipped.sort(), more };
}

/** @param {{path: string, want: any}} a */
function wantSource({ want }) {
  if (want === null) return 'null';
  const parts = [];
  if (want.type !== undefined) parts.push(`type: ${jsString(want.type)}`);
  if (want.properties) parts.push(`properties: ${valueSource(want.properties)}`);
  if (want.affordances) parts.push(`affordances: ${valueSource(want.affordances)}`);
  return `{ ${parts.join(', ')} }`;
}

// ------------------------------------------------------------------------------- the file

/**
 * The helpers every generated test carries: no provider data in them.
 * The numbers' comparison: by exact decimal value ("1.50" = "1.5", "-0" ≠ "0", 64-bit ids digit by digit).
 */
const HELPERS = `
// ----------------------------------------------------------------- helpers (written by SLOP Inspector)

/** A number as the provider wrote it (a 64-bit id, 1.50, -0): kept as its digits, never a double. */
function num(digits) {
  return typeof JSON.rawJSON === 'function' ? JSON.rawJSON(digits) : Object.freeze(Object.assign(Object.create(null), { rawJSON: digits }));
}

/** A number the library kept as its text (an ExactNumber), or a plain number. */
const isExact = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === null && typeof v.rawJSON === 'string';
const isNum = (v) => typeof v === 'number' || isExact(v);

/** One spelling of a number's exact decimal value: "1.50" and "1.5" are both "15e-1"; "-0" stays "-0". */
function decimal(v) {
  const text = typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : v.rawJSON;
  const m = /^(-?)(\\d+)(?:\\.(\\d*))?(?:[eE]([+-]?\\d+))?$/.exec(text);
  if (!m) return text;
  let digits = (m[2] + (m[3] ?? '')).replace(/^0+/, '');
  if (!digits) return m[1] + '0';
  const zeros = /0*$/.exec(digits)[0].length;
  digits = digits.slice(0, digits.length - zeros);
  return m[1] + digits + 'e' + (Number(m[4] ?? 0) - (m[3] ?? '').length + zeros);
}

/** Deep equality; numbers by exact decimal value; undefined: absent. */
function same(have, want) {
  if (isNum(want) || isNum(have)) return isNum(have) && isNum(want) && decimal(have) === decimal(want);
  if (want === null || have === null || typeof want !== 'object' || typeof have !== 'object') return have === want;
  if (Array.isArray(want) !== Array.isArray(have)) return false;
  const keys = Object.keys(want);
  return keys.length === Object.keys(have).length && keys.every((k) => Object.hasOwn(have, k) && same(have[k], want[k]));
}

const show = (v) => (v === undefined ? '(absent)' : stringifyExact(v));
const own = (o, k) => (o && Object.hasOwn(o, k) ? o[k] : undefined);

/** Why the node (null: absent) is not what "want" says, or an empty text when it is. */
function mismatch(node, want) {
  if (want === null) return node === null ? '' : 'expected no node here, but there is one';
  if (node === null) return 'expected a node here, but there is none';
  if (want.type !== undefined && node.type !== want.type) return 'type is ' + show(node.type) + ', expected ' + show(want.type);
  for (const [k, v] of Object.entries(want.properties ?? {})) {
    if (!same(own(node.properties, k), v)) return 'properties[' + JSON.stringify(k) + '] is ' + show(own(node.properties, k)) + ', expected ' + show(v);
  }
  for (const [a, offered] of Object.entries(want.affordances ?? {})) {
    if ((node.affordances ?? []).some((x) => x.action === a) !== offered) return 'affordance ' + JSON.stringify(a) + (offered ? ' is not offered' : ' is still offered');
  }
  return '';
}

/** Waits (WAIT_MS) for the node at path to be as recorded: a patch may come after the result. */
async function expectNode(app, path, want) {
  let why = '';
  try {
    await app.waitFor(path, (node) => !(why = mismatch(node, want)), { timeout: WAIT_MS });
  } catch (e) {
    if (e?.code !== 'timeout') throw e;
    assert.fail(path + ': ' + (why || 'not as recorded'));
  }
}
`;

/**
 * @typedef {object} TestDoc
 * @property {'playwright'|'node'} form
 * @property {{id?: string, name?: string}|null} provider   from its hello
 * @property {{type: string, url?: string}|null} transport
 * @property {string|null} pageUrl
 * @property {{from: number, to: number}|null} range       null: the whole History
 * @property {InvokeRecord[]} invokes
 * @property {string[]} [volatile]   paths that change on their own (planTest)
 * @property {string} [generatedAt]  an ISO time for the header (left out when absent: the text is then a function of the input)
 */

/**
 * The test file's text. Throws an Error with code "needs_playwright" for the node form of a
 * provider that has no address (postMessage: only a page reaches it).
 * @param {TestDoc} doc @returns {string}
 */
export function writeTest(doc) {
  const { form, provider, transport, pageUrl, range, invokes } = doc;
  const ws = transport?.type === 'ws' && typeof transport.url === 'string' ? transport.url : null;
  if (form === 'node' && !ws) {
    throw Object.assign(new Error(`The Node form needs a WebSocket provider's address; this provider is reached ${transport?.type === 'postmessage' ? 'by postMessage inside its page' : 'without a ws:// address'}: use the Playwright form, which opens the page.`), { code: 'needs_playwright' });
  }
  const volatile = new Set(doc.volatile ?? []);
  const who = provider?.name || provider?.id || 'the provider';
  const L = [];
  const n = invokes.length;
  L.push(`// ${comment(`A test written by SLOP Inspector ("Copy as test") from the History of ${who}${provider?.id ? ` (${provider.id})` : ''}:`)}`);
  L.push(`// ${range ? `steps ${Math.min(range.from, range.to)} to ${Math.max(range.from, range.to)}` : 'the whole History'}, ${n} invoke${n === 1 ? '' : 's'} in the recorded order, each followed by what it changed${doc.generatedAt ? ` (${comment(doc.generatedAt, 40)})` : ''}.`);
  L.push('// Numbers are the provider\'s own digits: num(\'…\') is compared by its exact decimal value, never through a double.');
  L.push('// Paths that changed on their own in the recording (a clock, new mail) are not asserted.');
  if (form === 'playwright') {
    L.push('//   node --test <this file>     needs slop-inspector and playwright-core, and Chromium ($CHROMIUM or /usr/bin/chromium)');
    L.push('// SLOP_PAGE_URL: the page to open' + (ws ? '; SLOP_PROVIDER_URL: the provider\'s address (for its token); SLOP_TOKEN: its bearer token, if it asks one.' : '.'));
  } else {
    L.push('//   node --test <this file>     needs slop-inspector');
    L.push('// SLOP_PROVIDER_URL: the provider\'s address; SLOP_TOKEN: its bearer token, if it asks one; SLOP_ORIGIN: the Origin sent (a provider that checks it must allow it).');
  }
  L.push('');
  L.push("import { test } from 'node:test';");
  L.push("import assert from 'node:assert/strict';");
  if (form === 'playwright') L.push("import { launchWithSlop, Slop, stringifyExact } from 'slop-inspector/playwright';");
  else L.push("import { connect, stringifyExact } from 'slop-inspector/node';");
  L.push('');
  L.push(`const WAIT_MS = ${WAIT_MS};`);
  L.push(`const PROVIDER_ID = ${provider?.id ? jsString(provider.id) : 'undefined'};`);
  if (form === 'playwright') {
    L.push(`const PAGE_URL = process.env.SLOP_PAGE_URL${pageUrl ? ` ?? ${jsString(pageUrl)}` : ''};`);
    if (ws) {
      L.push(`const PROVIDER_URL = process.env.SLOP_PROVIDER_URL ?? ${jsString(ws)};`);
      L.push('const TOKENS = process.env.SLOP_TOKEN ? { [new URL(PROVIDER_URL).origin]: process.env.SLOP_TOKEN } : {};');
    } else L.push('const TOKENS = {};');
  } else {
    L.push(`const PROVIDER_URL = process.env.SLOP_PROVIDER_URL ?? ${jsString(ws)};`);
    let origin = null;
    try { origin = pageUrl ? new URL(pageUrl).origin : null; } catch { origin = null; }
    L.push(`const ORIGIN = process.env.SLOP_ORIGIN${origin && origin !== 'null' ? ` ?? ${jsString(origin)}` : ''};`);
  }
  L.push('');
  L.push(`test(${jsString(`${who}: ${n} recorded invoke${n === 1 ? ' gives' : 's give'} the recorded state`)}, async (t) => {`);
  if (form === 'playwright') {
    L.push("  assert.ok(PAGE_URL, 'set SLOP_PAGE_URL to the page of the provider');");
    L.push('  const context = await launchWithSlop({ tokens: TOKENS });');
    L.push('  t.after(() => context.close());');
    L.push('  const page = await context.newPage();');
    L.push('  await page.goto(PAGE_URL);');
    L.push('  // approve: a provider on another origin than the page was approved in the recording.');
    L.push('  const app = await new Slop(context).provider(page, { ...(PROVIDER_ID ? { id: PROVIDER_ID } : {}), approve: true });');
  } else {
    L.push("  const app = await connect(PROVIDER_URL, { token: process.env.SLOP_TOKEN, origin: ORIGIN, numbers: 'verbatim' });");
    L.push('  t.after(() => app.close());');
    L.push("  if (PROVIDER_ID) assert.equal((await app.info()).provider?.id, PROVIDER_ID, 'the provider at PROVIDER_URL is another app');");
  }
  for (const inv of invokes) {
    L.push('');
    const outcome = inv.status ? ` → ${inv.status}${inv.message ? `: ${inv.message}` : ''}` : ' (no result recorded)';
    L.push(`  // ${comment(`step ${inv.step}: ${inv.action} on ${inv.path}${outcome}`)}`);
    const args = [jsString(inv.path), jsString(inv.action)];
    const params = typeof inv.paramsText === 'string' ? valueSource(parseVerbatim(inv.paramsText)) : null;
    if (params !== null || inv.dangerous) args.push(params ?? 'undefined');
    if (inv.dangerous) args.push('{ confirmDangerous: true }');
    const call = `app.invoke(${args.join(', ')})`;
    if (inv.status === 'error') {
      // Refused by the provider (invoke_failed), or the node or affordance was not there (not_found).
      L.push(`  await assert.rejects(${call}, (e) => e.code === 'invoke_failed' || e.code === 'not_found');`);
    } else if (inv.status === 'accepted') {
      L.push(`  assert.equal((await ${call}).status, 'accepted');`);
    } else L.push(`  await ${call};`);
    const { out, skipped, more } = assertionsOf(inv.diff, volatile);
    for (const a of out) L.push(`  await expectNode(app, ${jsString(a.path)}, ${wantSource(a)});`);
    if (!out.length && !skipped.length) L.push('  // it changed nothing in the recorded state');
    if (more) L.push(`  // … ${more} more change${more === 1 ? '' : 's'} not asserted (at most ${MAX_ASSERTIONS} an invoke)`);
    if (skipped.length) L.push(`  // ${comment(`not asserted, they change on their own: ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ` and ${skipped.length - 5} more` : ''}`)}`);
  }
  L.push('});');
  return `${L.join('\n')}\n${HELPERS}`;
}
