// The desktop bridge's invokes that wait for the user (extension/service-worker/bridge-approvals.js)
// in Node, with the real core for the mirror it judges by. It imports nothing of the browser: no
// fake is needed. What waits, what the user's answer or the timeout does (the invoke sent, or the
// desktop consumer refused in words), how many may wait, and which providers are trusted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Live } from './helpers.js';
import { BridgeApprovals, needsApproval, trustKeyOf, agentOf, APPROVAL_TIMEOUT_MS } from '../../extension/service-worker/bridge-approvals.js';

/** A connection as the approvals read it: a live mirror of the helpers' todo tree, on a page. */
async function connection({ tabId = 1, pageUrl = 'http://app.test/inbox', id = 'app' } = {}) {
  const live = await Live.start();
  return /** @type {any} */ ({ tabId, pageUrl, consumer: live.c, primarySub: live.sub, provider: { id, name: 'App' } });
}

/** One approval asked for; what became of it. @param {BridgeApprovals} approvals @param {any} conn */
function ask(approvals, conn, { providerKey = 'tab1/app', action = 'delete', path = '/todos/t1' } = {}) {
  const outcome = { sent: 0, refused: /** @type {string[]} */ ([]) };
  approvals.ask({
    providerKey, conn, why: 'dangerous', agent: agentOf({ id: 'claude', name: 'Claude' }),
    out: { path, action, message: { params: { really: true } } },
    send: () => { outcome.sent += 1; return true; },
    refuse: (m) => { outcome.refused.push(m); },
  });
  return outcome;
}

test('needsApproval: a dangerous affordance, or one the mirror does not show there, waits; a plain one does not', async () => {
  const conn = await connection();
  assert.equal(needsApproval(conn, '/todos/t1', 'delete'), 'dangerous');
  assert.equal(needsApproval(conn, '/todos/t1', 'toggle'), null);
  assert.equal(needsApproval(conn, '/todos/t1', 'launch'), 'unknown');
  assert.equal(needsApproval(conn, '/todos/nowhere', 'toggle'), 'unknown');
  assert.equal(needsApproval({ ...conn, consumer: null }, '/todos/t1', 'toggle'), 'unknown', 'no mirror: nothing is known');
});

test('the user\'s yes sends the invoke, a no refuses it in words; each answer counts once; the popup hears of each change', async () => {
  let changes = 0;
  const approvals = new BridgeApprovals(() => { changes += 1; });
  const conn = await connection();
  const a = ask(approvals, conn);
  const b = ask(approvals, conn, { action: 'archive' });
  assert.equal(changes, 2);
  const [ea, eb] = approvals.entries();
  assert.deepEqual({ id: ea.id, path: ea.path, action: ea.action, why: ea.why, provider: ea.provider, params: ea.params, agent: ea.agent, tabId: ea.tabId },
    { id: 'a1', path: '/todos/t1', action: 'delete', why: 'dangerous', provider: 'App', params: '{"really":true}', agent: { id: 'claude', name: 'Claude' }, tabId: 1 });
  assert.ok(ea.expiresAt > Date.now() && ea.expiresAt <= Date.now() + APPROVAL_TIMEOUT_MS);
  assert.equal(approvals.waitingFor(1), true);
  assert.equal(approvals.waitingFor(2), false);
  assert.equal(approvals.decide(ea.id, true), true);
  assert.deepEqual(a, { sent: 1, refused: [] });
  assert.equal(approvals.decide(ea.id, true), false, 'no longer waiting');
  assert.equal(approvals.decide(eb.id, false), true);
  assert.deepEqual(b, { sent: 0, refused: ['declined in SLOP Inspector'] });
  assert.equal(approvals.waitingFor(1), false);
  assert.equal(changes, 4);
  // A yes whose page went away meanwhile is refused too.
  approvals.ask({ providerKey: 'k', conn, why: 'unknown', agent: null, out: { path: '/', action: 'x', message: {} }, send: () => false, refuse: (m) => { b.refused.push(m); } });
  approvals.decide(approvals.entries()[0].id, true);
  assert.equal(b.refused.at(-1), 'the provider went away');
});

test('no answer in time refuses the invoke, saying how long it waited', async () => {
  const approvals = new BridgeApprovals(() => {});
  approvals.timeoutMs = 40;
  const a = ask(approvals, await connection());
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(a, { sent: 0, refused: ['no answer in SLOP Inspector within 0 s: not invoked'] });
  assert.deepEqual(approvals.entries(), []);
});

test('at most 20 wait at once; refuseAll refuses one provider\'s or all, in the words given', async () => {
  const approvals = new BridgeApprovals(() => {});
  const conn = await connection();
  const outs = Array.from({ length: 21 }, (_, i) => ask(approvals, conn, { providerKey: i % 2 ? 'odd' : 'even' }));
  assert.equal(approvals.entries().length, 20);
  assert.deepEqual(outs[20].refused, ['too many invokes are waiting for approval in SLOP Inspector']);
  approvals.refuseAll('the desktop went away', 'odd');
  assert.equal(approvals.entries().length, 10);
  assert.deepEqual(outs[1].refused, ['the desktop went away']);
  assert.deepEqual(outs[0].refused, []);
  approvals.refuseAll('the bridge was turned off');
  assert.deepEqual(approvals.entries(), []);
  assert.deepEqual(outs[0].refused, ['the bridge was turned off']);
});

test('a trust is for the provider on one page origin with one hello id: another origin or id is asked about again', async () => {
  const approvals = new BridgeApprovals(() => {});
  const conn = await connection();
  const key = trustKeyOf('tab1/app', conn);
  assert.equal(key, 'tab1/app http://app.test app');
  assert.equal(approvals.setTrust([key, 42, null]), true);
  assert.equal(approvals.setTrust([key]), false, 'nothing changed');
  assert.equal(approvals.trusts('tab1/app', conn), true);
  assert.equal(approvals.trusts('tab1/app', { ...conn, pageUrl: 'http://evil.test/inbox' }), false);
  assert.equal(approvals.trusts('tab1/app', { ...conn, provider: { id: 'other' } }), false);
  assert.equal(approvals.setTrust('not a list'), true);
  assert.equal(approvals.trusts('tab1/app', conn), false);
});

test('agentOf keeps a desktop consumer\'s id and name short and printable, or says nothing', () => {
  assert.deepEqual(agentOf({ id: 'a\u0000b\nc', name: 'x'.repeat(200) }), { id: 'a b c', name: 'x'.repeat(80) });
  assert.deepEqual(agentOf({ id: 7 }), { id: '7', name: null });
  assert.equal(agentOf({ id: {}, name: [] }), null);
  assert.equal(agentOf('claude'), null);
});
