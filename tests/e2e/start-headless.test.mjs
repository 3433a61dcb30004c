// Headless `npm start` (no display): its first screenshot shows the compose form's Invoke button
// (not under the log drawer), and the run ends with what to do next (issue 45).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './helpers.mjs';

test('headless npm start: the Invoke button in panel.png; next steps at the end', { timeout: 180_000 }, async () => {
  const env = { ...process.env, SLOP_DEMO_PORT: '0', SLOP_DEMO_ALT_PORT: '0' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.SLOP_DEMO_NO_BROWSER;
  const child = spawn(process.execPath, [path.join(ROOT, 'tests/fixtures/start.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `exit 0\n${out}\n${err}`);
  assert.match(out, /build\/screenshots\/panel\.png/);
  assert.doesNotMatch(out, /the Invoke button is not in view/, 'start.mjs checks the button is what shows at its place');
  // It ends with the next steps, in a few lines.
  const next = out.slice(out.lastIndexOf('\nNext:')).trim().split('\n');
  assert.equal(next[0], 'Next:');
  assert.ok(next.length <= 10, `a few lines: ${next.length}`);
  const text = next.join('\n');
  for (const want of [/build\/screenshots\//, /Load unpacked/, /build\/extension/, /about:debugging/, /SLOP_DEMO_NO_BROWSER=1 npm start/, /npm test/]) {
    assert.match(text, want);
  }
});
