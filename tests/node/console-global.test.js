// $slop (extension/panel/parts/console-global.js): what the panel puts in the inspected page's
// console. Run here in a fresh V8 context as the page would: exact numbers (BigInt where a double
// cannot hold the integer, nodeJSON in the provider's digits), frozen, provider text never code,
// and only the page's own providers' state.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import v8 from 'node:v8';

// The browsers run this with JSON.parse's source text (Chromium, Firefox 135+); Node 20's V8 has it
// behind a flag. Set before any page context is made.
v8.setFlagsFromString('--harmony-json-parse-with-source');

// browser.js needs an extension context; the eval itself is given to ConsoleGlobal below.
globalThis.chrome = { runtime: { id: 'test', getURL: (p) => `chrome-extension://test/${p}` }, storage: { local: {}, session: {} } };
await import('../../js-glue/node/exact-json.js'); // Node 20: kept numbers through lossless-json, as the browser's JSON.rawJSON
const { ConsoleGlobal, consoleScript, pageOwnsProvider, nestedTree } = await import('../../extension/panel/parts/console-global.js');
const { exactViews } = await import('../../extension/panel/exact-views.js');

const view = (path, child_ids, rest) => ({ id: path === '/' ? 'app' : path.slice(path.lastIndexOf('/') + 1), type: 'item', path, child_ids, ...rest });

function panelWith(provider, views, selected) {
  const nodes = new Map(views.map((v) => [v.path, v]));
  const src = { key: 'k', sub: 's', path: '/', nodes, version: 7, resetId: 1, structure: 1, live: true, complete: true };
  const sent = [];
  const g = new ConsoleGlobal({
    selection: { provider: () => provider, source: () => src, scrub: null },
    treeView: { selection: () => (selected ? { path: selected } : null) },
  }, (expr) => { sent.push(expr); return Promise.resolve(true); });
  return { g, sent };
}

/** Runs what the panel sends in a page-like context and returns its $slop. */
function inPage(expr) {
  const page = vm.createContext({});
  vm.runInContext(expr, page);
  return vm.runInContext('globalThis.$slop', page);
}

const own = { key: 'ws://127.0.0.1:1/slop', source: 'meta', classification: 'same-origin', transport: { type: 'ws', url: 'ws://127.0.0.1:1/slop' }, status: 'connected', provider: { id: 'app', name: 'App' } };

test('the page gets the selected node, the tree, frozen, with its numbers exact', async () => {
  // The worker's view text, as the panel reads it: 64-bit ids and 1.50 kept.
  const [root, big] = exactViews(JSON.stringify([
    view('/', ['big'], { properties: { label: 'App' } }),
    view('/big', [], { properties: { id: 0, price: 0 } }),
  ]).replace('"id":0', '"id":9007199254740993').replace('"price":0', '"price":1.50'));
  const { g, sent } = panelWith(own, [root, big], '/big');
  g.later();
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(sent.length, 1);
  const s = inPage(sent[0]);
  assert.equal(s.path, '/big');
  assert.equal(s.node.properties.id, 9007199254740993n, 'an integer a double cannot hold arrives as BigInt');
  assert.equal(s.node.properties.price, 1.5);
  assert.match(s.nodeJSON, /"id":9007199254740993/);
  assert.match(s.nodeJSON, /"price":1\.50/, 'nodeJSON: the provider\'s own digits');
  assert.equal(s.tree.children[0].id, 'big');
  assert.equal(s.version, 7);
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.node.properties) && Object.isFrozen(s.tree.children));
  assert.throws(() => vm.runInContext('"use strict"; $slop.node.id = "x"', vm.createContext({ $slop: s })), { name: "TypeError" });
  // Nothing changed: nothing sent again.
  g.later();
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(sent.length, 1);
});

test('provider text is data, never code: quotes, backslashes, line separators and a closing script stay strings', () => {
  const nasty = '"); globalThis.pwned = 1; ("\\\u2028\u2029</script>${x}`';
  const page = vm.createContext({});
  vm.runInContext(consoleScript(JSON.stringify({ node: { properties: { label: nasty } } })), page);
  assert.equal(vm.runInContext('globalThis.$slop.node.properties.label', page), nasty);
  assert.equal(vm.runInContext('globalThis.pwned', page), undefined);
});

test('only the page\'s own providers: another origin, an address added by hand and a local app are withheld', async () => {
  assert.equal(pageOwnsProvider(own), true);
  assert.equal(pageOwnsProvider({ transport: { type: 'postmessage' }, source: 'meta' }), true);
  assert.equal(pageOwnsProvider({ ...own, classification: 'cross-origin' }), false);
  assert.equal(pageOwnsProvider({ ...own, source: 'manual' }), false);
  assert.equal(pageOwnsProvider({ ...own, source: 'local', transport: { type: 'unix', path: '/tmp/x' } }), false);
  const { g, sent } = panelWith({ ...own, classification: 'cross-origin' }, [view('/', [], { properties: { secret: 's3cret' } })], '/');
  g.later();
  await new Promise((r) => setTimeout(r, 400));
  const s = inPage(sent[0]);
  assert.equal(s.node, null);
  assert.equal(s.tree, null);
  assert.match(s.withheld, /not the page’s own/);
  assert.doesNotMatch(sent[0], /s3cret/, 'the state never reaches the page');
});

test('nestedTree: children in provider order, a child not loaded yet said so', () => {
  const nodes = new Map([view('/', ['b', 'a']), view('/b', [])].map((v) => [v.path, v]));
  assert.deepEqual(nestedTree(nodes, '/'), { id: 'app', type: 'item', children: [{ id: 'b', type: 'item' }, { id: 'a', notLoaded: true }] });
});
