// extension/shared/node-path.js composes and splits the absolute paths the core reports in node
// views. It must agree with the core for every node: a drift would make the panel ask for nodes
// the core does not know.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childPath, parentPath, isAtOrUnder } from '../../extension/shared/node-path.js';
import { Live } from './helpers.js';

const item = (id, children) => ({ id, type: 'item', ...(children ? { children } : {}) });

test('node-path.js agrees with the core\'s node views on every node', async () => {
  const tree = {
    id: 'root', type: 'root', children: [
      item('inbox', [item('msg-42'), item('Ünïcødé ✓'), item('a.b'), item('with space', [item('x')])]),
      item('0'), item('-'), item('%2F'),
    ],
  };
  const l = await Live.start({ tree });
  let seen = 0;
  const walk = (view) => {
    seen++;
    for (const id of view.child_ids) {
      const expected = childPath(view.path, id);
      const child = l.c.node(l.sub, expected);
      assert.ok(child, `the core knows ${expected}`);
      assert.equal(child.path, expected);
      assert.equal(parentPath(child.path), view.path);
      assert.ok(isAtOrUnder(child.path, view.path));
      assert.ok(!isAtOrUnder(view.path, child.path));
      walk(child);
    }
  };
  const root = l.c.node(l.sub, '/');
  assert.equal(root.path, '/');
  assert.equal(parentPath('/'), null);
  walk(root);
  assert.equal(seen, 10);
  assert.ok(!isAtOrUnder('/inbox2', '/inbox'));
  l.free();
});
