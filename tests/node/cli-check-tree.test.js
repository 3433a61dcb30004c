// The CLI's check and tree as people use them (issue 47): `check --invoke … --drift` judges the
// drift the invoke leaves; `tree --path/--depth` prints the same canonical text as `tree`; a
// command that never says hello is said with the time actually waited.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './helpers.js';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { StateEngine } from '../fixtures/provider/state.mjs';

test('check --invoke then --drift: the drift is judged after the invoke, so a handler that changes state without a patch is caught', async () => {
  const engine = new StateEngine({ tree: { id: 'root', type: 'root', children: [
    { id: 'inbox', type: 'collection', children: [
      { id: 'm7', type: 'item', properties: { unread: true }, affordances: [{ action: 'mark_read' }] }] }] } });
  // The bug a drift check is for: the handler's change lands after its flush, so no patch carries it.
  engine.setHandler('mark_read', async (ctx) => {
    await null;
    ctx.engine.root.children[0].children[0].properties.unread = false;
  });
  const p = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine });
  try {
    const r = await runCli(['check', p.wsUrl, '--watch', '100', '--invoke', '/inbox/m7', 'mark_read', '--drift'], { SLOP_TOKEN: p.token });
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /MUST drift .*\n {2}\/inbox\/m7\/properties\/unread v\d+: at version \d+ the patches give true, the provider's state is false/);
  } finally {
    await p.close();
  }
});

test('tree --path and --depth print the canonical text tree prints, cut where asked and saying so', async () => {
  const p = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: 3 }) });
  try {
    const env = { SLOP_TOKEN: p.token };
    const whole = await runCli(['tree', p.wsUrl], env);
    assert.equal(whole.code, 0, whole.stderr);
    const inbox = await runCli(['tree', p.wsUrl, '--path', '/inbox'], env);
    assert.equal(inbox.code, 0, inbox.stderr);
    // The subtree's lines are the whole tree's lines for it, one level less indented.
    const wholeLines = whole.stdout.split('\n');
    const at = wholeLines.findIndex((l) => l.startsWith('  [collection] inbox'));
    const sub = inbox.stdout.trimEnd().split('\n');
    assert.deepEqual(sub, wholeLines.slice(at, at + sub.length).map((l) => l.slice(2)));
    assert.equal(sub.length, 4, inbox.stdout);
    const top = await runCli(['tree', p.wsUrl, '--depth', '1'], env);
    assert.equal(top.code, 0, top.stderr);
    assert.match(top.stdout, /^\[root\] acme-mail: Acme Mail/);
    assert.match(top.stdout, /^ {2}\[collection\] inbox: Inbox .*\n {4}\(3 children below depth 1\)$/m);
    assert.doesNotMatch(top.stdout, /\[item\] msg-/);
    const none = await runCli(['tree', p.wsUrl, '--path', '/nope'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no node at \/nope/);
    const asJson = await runCli(['tree', p.wsUrl, '--path', '/inbox', '--depth', '0', '--json'], env);
    assert.equal(JSON.parse(asJson.stdout).id, 'inbox');
  } finally {
    await p.close();
  }
});

test('a command that never says hello: said with the time waited (not the 5 s of the first notice), and no late hello promised', { timeout: 30_000 }, async () => {
  const r = await runCli(['tree', '--timeout', '6500', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /started, but no hello came in (6\.[5-9]|7(\.\d)?) s: is it a SLOP provider\?\n$/);
});
