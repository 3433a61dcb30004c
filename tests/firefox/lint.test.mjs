// web-ext lint (Mozilla's addons-linter) on the unpacked extension: no errors, and no warnings
// but the accepted ones below.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, EXT_DIR } from './helpers.mjs';

/**
 * Warnings that are expected, with the reason.
 *   BACKGROUND_SERVICE_WORKER_IGNORED: the one manifest serves both browsers; Firefox ignores
 *   background.service_worker and uses background.scripts.
 */
const ACCEPTED_WARNINGS = new Set(['BACKGROUND_SERVICE_WORKER_IGNORED']);

function lint() {
  const bin = path.join(ROOT, 'node_modules/.bin/web-ext');
  assert.ok(fs.existsSync(bin), `${bin} is missing: run npm ci (bash build.sh)`);
  assert.ok(fs.existsSync(path.join(EXT_DIR, 'manifest.json')), `${EXT_DIR}/manifest.json is missing: run bash build.sh`);
  return new Promise((resolve, reject) => {
    execFile(bin, ['lint', '--source-dir', EXT_DIR, '--self-hosted', '--output=json', '--no-config-discovery'],
      { cwd: ROOT, timeout: 60_000, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        // web-ext exits non-zero when there are errors; the JSON report is on stdout either way.
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`web-ext lint gave no JSON report (${err?.message ?? 'exit 0'}):\n${stdout.slice(0, 2000)}\n${stderr.slice(0, 2000)}`));
        }
      });
  });
}

const describe = (list) => list.map((m) => `${m.code} ${m.file ?? ''}${m.line ? `:${m.line}` : ''}: ${m.message}`).join('\n');

test('web-ext lint: 0 errors, only the accepted warnings', { timeout: 90_000 }, async (t) => {
  const report = await lint();
  assert.equal(report.metadata?.manifestVersion, 3);
  assert.deepEqual(report.errors, [], `errors:\n${describe(report.errors)}`);
  const unexpected = report.warnings.filter((w) => !ACCEPTED_WARNINGS.has(w.code));
  assert.deepEqual(unexpected, [], `warnings not in ACCEPTED_WARNINGS:\n${describe(unexpected)}`);
  if (report.notices.length) t.diagnostic(`notices:\n${describe(report.notices)}`);
  t.diagnostic(`${report.summary.errors} errors, ${report.summary.warnings} warnings (${report.warnings.map((w) => w.code).join(', ') || 'none'}), ${report.summary.notices} notices`);
});
