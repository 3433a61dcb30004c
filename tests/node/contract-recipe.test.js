// Follows docs/architecture.md's "Adding a core event" literally, in a scratch copy: one line in
// SLOP_EVENTS (wasm/include/slop_core.h) gives JavaScript its name, its typed members and a new
// contract hash (so the old wasm is refused), and js-glue/event-text.js, which has words for every
// event, stops type-checking until it has words for the new one too. The recipe's step in the
// core's C (emitting it) is checked by the C build and tests/node/header.test.js.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as contract from '../../js-glue/core-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CJSON_DIR = fs.readFileSync(path.join(ROOT, 'build/cjson-dir.txt'), 'utf8').trim();

/** The recipe's step 1: a line in SLOP_EVENTS (here the first). */
const NEW_EVENT = '    X(HEARTBEAT, "heartbeat", "sub: string; at: number; late?: boolean", "the provider is alive") \\\n';

test('one line in SLOP_EVENTS: the name, the typed members, a new hash; eventText must say it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slop-recipe-'));
  try {
    const header = fs.readFileSync(path.join(ROOT, 'wasm/include/slop_core.h'), 'utf8');
    const anchor = '#define SLOP_EVENTS(X)                                                             \\\n';
    assert.ok(header.includes(anchor), 'slop_core.h has the SLOP_EVENTS list');
    fs.mkdirSync(path.join(dir, 'include'));
    fs.writeFileSync(path.join(dir, 'include/slop_core.h'), header.replace(anchor, anchor + NEW_EVENT));

    // The build's generator, against the edited header (its directory first on the include path).
    const gen = path.join(dir, 'contract_gen');
    execFileSync('gcc', ['-std=c11', '-D_POSIX_C_SOURCE=200809L', '-Wall', '-Wextra', '-Werror', `-I${dir}/include`,
      `-I${ROOT}/wasm/src`, `-I${CJSON_DIR}`, 'wasm/tools/contract_gen.c', 'wasm/src/contract.c', 'wasm/src/util.c', '-o', gen], { cwd: ROOT });
    const glue = path.join(dir, 'js-glue');
    fs.mkdirSync(glue);
    fs.writeFileSync(path.join(glue, 'core-contract.js'), execFileSync(gen, ['js'], { encoding: 'utf8' }));
    const dts = execFileSync(gen, ['dts'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(glue, 'core-contract.d.ts'), dts);

    const js = fs.readFileSync(path.join(glue, 'core-contract.js'), 'utf8');
    assert.match(js, /^ {2}HEARTBEAT: 'heartbeat',$/m);
    assert.match(dts, /export interface HeartbeatEvent \{\n {2}event: 'heartbeat';\n {2}sub: string;\n {2}at: number;\n {2}late\?: boolean;\n\}/);
    assert.match(dts, /export type CoreEvent = [^;]*\bHeartbeatEvent\b/);
    const hash = Number(/CONTRACT_HASH = (0x[0-9a-f]+)/.exec(js)[1]);
    assert.notEqual(hash, contract.CONTRACT_HASH, 'a wasm built from the old table is refused (checkContract)');

    // Step 3: eventText has no words for it, and the type check says so.
    fs.copyFileSync(path.join(ROOT, 'js-glue/event-text.js'), path.join(glue, 'event-text.js'));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { allowJs: true, checkJs: true, noEmit: true, target: 'es2023', module: 'esnext', moduleResolution: 'node10', lib: ['es2023'], types: [] },
      files: ['js-glue/event-text.js'],
    }));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const before = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.notEqual(before.status, 0, 'event-text.js without the new event does not type-check');
    assert.match(before.stdout, /event-text\.js.*HeartbeatEvent.*never/s);
    // With its words (the recipe's line), it does.
    const withWords = fs.readFileSync(path.join(glue, 'event-text.js'), 'utf8').replace(
      '    default: {', '    case CoreEventName.HEARTBEAT: return `alive at ${ev.at}${ev.late ? \' (late)\' : \'\'}`;\n    default: {');
    fs.writeFileSync(path.join(glue, 'event-text.js'), withWords);
    const after = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(after.status, 0, after.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
