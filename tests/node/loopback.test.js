// One loopback rule: the JS one (provider-address.js: isLoopbackHost, used by the reconnect
// policy, the desktop bridge's and the String webhook's address checks) and the core's (url.c,
// which decides which targets a loopback page may reach without approval) agree on every host.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from './helpers.js';
import { isLoopbackHost, isLoopbackUrl } from '../../js-glue/provider-address.js';

// The core's own lists (tests/c/test_discovery.c), as hosts a URL can carry, and the forms a URL
// parser turns into them.
const HOSTS = [
  'localhost', 'LOCALHOST', 'LocalHost', 'app.localhost', 'a.b.LOCALHOST', '127.0.0.1', '127.255.255.255',
  '127.1.2.3', '127.000.000.001', '[::1]', '[0:0:0:0:0:0:0:1]', '[0::1]', '2130706433', '0x7f.1', '127.1',
  'localhost.example.com', '128.0.0.1', '[::2]', 'example.com', '127.0.0.1.evil.com', 'notlocalhost',
  '0.0.0.0', '[::ffff:127.0.0.1]', '10.0.0.1', '192.168.1.10', 'xn--localhost-9za',
];

test('the JS loopback rule and the core\'s agree on every host', async () => {
  const core = await loadCore();
  for (const host of HOSTS) {
    const url = `ws://${host}:9/slop`;
    // A page on 127.0.0.2 reaches a target without approval exactly when the core finds both loopback.
    const core_ = core.classifyTarget('http://127.0.0.2:8/', url).classification === 'same-origin';
    // The core's strict parser refuses the IPv4 forms a WHATWG parser rewrites (127.1, 0x7f.1,
    // 2130706433, 127.000.000.001): such a target is never reached without the user's approval.
    if (!core.parseMeta(url, 'http://127.0.0.2:8/').ok) {
      assert.equal(core_, false, `${host}: refused by the core, so it needs approval`);
      continue;
    }
    let hostname;
    try { hostname = new URL(url).hostname; } catch { hostname = '(not a URL to JS)'; }
    assert.equal(isLoopbackUrl(url), core_, `${host} (hostname ${hostname}): JS ${isLoopbackUrl(url)}, core ${core_}`);
  }
});

test('isLoopbackHost takes URL.hostname forms', () => {
  assert.equal(isLoopbackHost('[::1]'), true);
  assert.equal(isLoopbackHost('127.0.0.1'), true);
  assert.equal(isLoopbackHost('::1'), false, 'a hostname keeps its brackets');
  assert.equal(isLoopbackUrl('not a url'), false);
});
