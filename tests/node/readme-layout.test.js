// The layout listing (docs/architecture.md, between <!-- layout:start --> and <!-- layout:end -->)
// stays true: every file or folder it names exists, and every source file is named, so a file added,
// moved or removed without its line fails here. The README links the listing, and no relative link
// in the README or docs/ (docs/guide/ included) points at a file that is not there, or at a heading
// that file does not have. The README is a front page: at most 300 lines, linking every page of the
// user's guide (docs/guide/).
//
// The listing's form: a heading line (`### ...`) whose first backticked name ending in "/" is the
// folder its items are under (none: the top level); items `- \`name\`, \`name\`: what they are`,
// names relative to that folder ("parts/toolbar.js"; a name ending in "/" is a folder).
//
// Source files (they must be named): every file under extension/, js-glue/, bin/, wasm/ and
// tests/fixtures/, and every file directly in tests/bench/, tests/ui/ and the top level, whose name
// ends in .js .mjs .cjs .ts .mts .c .h .html .css or .sh, or is a Makefile. Test files elsewhere
// under tests/ are named by their folder.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYOUT_DOC = 'docs/architecture.md';

const SOURCE = /\.(m?js|cjs|m?ts|c|h|html|css|sh)$|(^|\/)Makefile$/;
const TREES = ['extension', 'js-glue', 'bin', 'wasm', 'tests/fixtures'];
const FLAT = ['tests/bench', 'tests/ui', '.'];

/**
 * The names a layout listing gives, repo-relative ("extension/panel/parts/toolbar.js", or a
 * folder with its "/"), and its malformed lines. Throws when the markers are missing.
 */
export function parseLayout(doc) {
  const m = doc.match(/<!-- layout:start[^>]*-->\n([\s\S]*?)\n<!-- layout:end -->/);
  if (!m) throw new Error('no listing between <!-- layout:start --> and <!-- layout:end -->');
  const names = [];
  const malformed = [];
  let folder = '';
  for (const line of m[1].split('\n')) {
    if (/^#+ /.test(line)) {
      const f = [...line.matchAll(/`([^`]+)`/g)].map((x) => x[1]).find((x) => x.endsWith('/'));
      folder = f && f !== './' ? f : '';
    } else if (line.startsWith('- ')) {
      const item = line.match(/^- ((?:`[^`]+`(?:, | and )?)+):/);
      if (!item) {
        malformed.push(line);
        continue;
      }
      for (const [, name] of item[1].matchAll(/`([^`]+)`/g)) names.push(path.posix.join(folder, name)); // keeps a folder's "/"
    }
  }
  return { names, malformed };
}

/** The source files under `root` that the rule above says must be named, repo-relative. */
export function sourceFiles(root) {
  const out = [];
  const walk = (rel, deep) => {
    const dir = path.join(root, rel);
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = rel === '.' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (deep && e.name !== 'node_modules') walk(p, true);
      } else if (SOURCE.test(p)) {
        out.push(p);
      }
    }
  };
  for (const t of TREES) walk(t, true);
  for (const f of FLAT) walk(f, false);
  return out.sort();
}

/** What is wrong with a listing against the files under `root`: {missing, unnamed, malformed}. */
export function layoutProblems(root, doc) {
  const { names, malformed } = parseLayout(doc);
  const missing = names.filter((n) => {
    const p = path.join(root, n);
    return n.endsWith('/') ? !fs.existsSync(p) || !fs.statSync(p).isDirectory() : !fs.existsSync(p) || !fs.statSync(p).isFile();
  });
  const named = new Set(names);
  const unnamed = sourceFiles(root).filter((f) => !named.has(f));
  return { missing, unnamed, malformed };
}

test('every file the layout names exists, and every source file is named', () => {
  const doc = fs.readFileSync(path.join(ROOT, LAYOUT_DOC), 'utf8');
  const { missing, unnamed, malformed } = layoutProblems(ROOT, doc);
  assert.deepEqual(malformed, [], `${LAYOUT_DOC}: lines of the layout that are not "- \`name\`: what it is"`);
  assert.deepEqual(missing, [], `${LAYOUT_DOC} names files that do not exist (moved or removed? fix their lines)`);
  assert.deepEqual(unnamed, [], `source files ${LAYOUT_DOC}'s layout does not name (add a line for each, under its folder)`);
});

test('the check catches a file named but gone, a source file not named, and a malformed line', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
  try {
    fs.mkdirSync(path.join(root, 'js-glue'));
    fs.mkdirSync(path.join(root, 'tests/bench'), { recursive: true });
    for (const f of ['js-glue/a.js', 'js-glue/b.js', 'tests/bench/x.mjs', 'build.sh', 'notes.md']) fs.writeFileSync(path.join(root, f), '');
    fs.mkdirSync(path.join(root, 'tests/bench/deep'));
    fs.writeFileSync(path.join(root, 'tests/bench/deep/y.mjs'), ''); // below a flat folder: not required
    const doc = [
      '<!-- layout:start -->',
      '### At the top',
      '- `build.sh`: the build',
      '### `js-glue/`: the glue',
      '- `a.js`, `gone.js`: two modules',
      '- a line without a name',
      '### `tests/`',
      '- `bench/`, `nowhere/`: folders',
      '<!-- layout:end -->',
    ].join('\n');
    const p = layoutProblems(root, doc);
    assert.deepEqual(p.missing, ['js-glue/gone.js', 'tests/nowhere/']);
    assert.deepEqual(p.unnamed, ['js-glue/b.js', 'tests/bench/x.mjs']);
    assert.deepEqual(p.malformed, ['- a line without a name']);
    assert.throws(() => parseLayout('# no markers'), /layout:start/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** The Markdown files a reader follows: the README and everything under docs/, repo-relative. */
function markdownFiles() {
  const out = ['README.md'];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk('docs');
  return out.sort();
}

/** The anchors GitHub gives a Markdown file's headings ("## The two commands" → "the-two-commands"). */
export function headingAnchors(text) {
  const anchors = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) fence = !fence;
    const m = !fence && line.match(/^#{1,6} (.*)$/);
    if (!m) continue;
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

test('the README links the layout, and no relative link in the README or docs/ is broken', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes(`](${LAYOUT_DOC}`), `README.md links ${LAYOUT_DOC}`);
  const broken = [];
  for (const f of markdownFiles()) {
    const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // a URL
      const [file, anchor] = target.split('#');
      const to = file ? path.join(ROOT, path.dirname(f), file) : path.join(ROOT, f);
      if (!fs.existsSync(to)) broken.push(`${f}: ${target}`);
      else if (anchor !== undefined && to.endsWith('.md') && !headingAnchors(fs.readFileSync(to, 'utf8')).has(anchor)) {
        broken.push(`${f}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('the README is a front page: at most 300 lines, and it links every page of the guide', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 300, `README.md has ${lines} lines; at most 300: move the detail to a page of docs/guide/ and link it`);
  const pages = fs.readdirSync(path.join(ROOT, 'docs/guide')).filter((f) => f.endsWith('.md')).map((f) => `docs/guide/${f}`);
  assert.ok(pages.length > 0, 'docs/guide/ has the guide\'s pages');
  const unlinked = pages.filter((p) => !readme.includes(`](${p})`) && !readme.includes(`](${p}#`));
  assert.deepEqual(unlinked, [], 'pages of docs/guide/ that the README\'s "Where to read on" does not link');
  for (const p of pages) {
    const head = fs.readFileSync(path.join(ROOT, p), 'utf8').split('\n').slice(0, 8).join('\n');
    assert.match(head, /^# .+\n\n[^#\n]/, `${p} starts with its title, then a line saying what the page is`);
    assert.ok(head.includes('](../../README.md)'), `${p} links back to the README near its top`);
  }
});

test('heading anchors are the ones GitHub makes', () => {
  const a = headingAnchors('# The panel\n## When it does not connect: what each message means\n```\n# not a heading\n```\n## Can a model use your app? (an LLM agent through SLOP)\n## Keys\n## Keys\n');
  assert.deepEqual([...a], ['the-panel', 'when-it-does-not-connect-what-each-message-means',
    'can-a-model-use-your-app-an-llm-agent-through-slop', 'keys', 'keys-1']);
});
