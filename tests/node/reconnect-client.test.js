// The Node client (slop-inspector/node) runs the extension's Connection, so it follows a dev
// server's restarts with the same reconnect policy (js-glue/reconnect-policy.js): the fast path
// after a restart, the back-off for a crash loop. Asserts on the policy's decisions, not on time.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWsProvider } from '../fixtures/provider/ws-server.mjs';
import { createMailEngine } from '../fixtures/demo-trees.mjs';
import { connect } from '../../js-glue/node/client.js';
import { POLICY } from '../../js-glue/reconnect-policy.js';

const inboxCount = (tree) => tree?.children?.find((c) => c.id === 'inbox')?.meta?.total_children;

async function until(fn, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the Node client follows a provider restarted on the same port, by the fast path, each time', async () => {
  let srv = await startWsProvider({ host: '127.0.0.1', port: 0, allowMissingOrigin: true, engine: createMailEngine({ messages: 5 }) });
  const port = Number(new URL(srv.wsUrl).port);
  const client = await connect(srv.wsUrl, { token: srv.token });
  try {
    for (let i = 0; i < 3; i++) {
      // Live, then the dev server restarts at once (a file watcher), its counter back at 1.
      await srv.close();
      srv = await startWsProvider({ host: '127.0.0.1', port, token: srv.token, allowMissingOrigin: true, engine: createMailEngine({ messages: 6 + i }) });
      const info = await until(async () => {
        const p = await client.info();
        return p.live && inboxCount(await client.tree()) === 6 + i ? p : null;
      }, `restart ${i + 1} followed`);
      assert.equal(info.reconnect.mode, 'restart', JSON.stringify(info.reconnect));
      assert.ok(info.reconnect.delay <= POLICY.LOOPBACK_CAP_MS, `${info.reconnect.delay} ms`);
      assert.ok(info.reconnect.seq >= i + 1);
    }
  } finally {
    client.close();
    await srv.close();
  }
});
