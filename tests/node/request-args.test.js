// The one table of what each UI request carries (extension/shared/request-args.js): every request
// of the catalogue has its members declared, and the check reads the table as documented.
// tests/node/worker-ports.test.js checks that the worker's port applies it before any handler.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../../extension/shared/messages.js';
import { REQUEST_ARGS, requestArgsProblem } from '../../extension/shared/request-args.js';

test('every request of the catalogue, and nothing else, has its members declared', () => {
  assert.deepEqual(Object.keys(REQUEST_ARGS).sort(), Object.values(Request).sort());
  const specs = Object.values(REQUEST_ARGS).flatMap((members) => Object.values(members));
  for (const s of specs) assert.match(s, /^\??(string|number|integer|boolean|object|array|any)(\|(string|number|integer|boolean|object|array|any))*$/, s);
  assert.ok(Object.isFrozen(REQUEST_ARGS));
});

test('the check: required, optional (absent or null), each kind, several kinds, extra members', () => {
  const t = Request.HISTORY_STATE; // {key: 'string', step: 'integer', have: '?integer'}
  assert.equal(requestArgsProblem(t, { key: 'k', step: 3 }), null);
  assert.equal(requestArgsProblem(t, { key: 'k', step: 3, have: null, other: 'x' }), null);
  assert.equal(requestArgsProblem(t, { key: 'k' }), 'ui/history-state: "step" is missing');
  assert.equal(requestArgsProblem(t, { key: 'k', step: 1.5 }), 'ui/history-state: "step" must be an integer');
  assert.equal(requestArgsProblem(t, { key: 'k', step: 2 ** 60 }), 'ui/history-state: "step" must be an integer');
  assert.equal(requestArgsProblem(t, { key: 'k', step: 1, have: '2' }), 'ui/history-state: "have" must be an integer');
  assert.equal(requestArgsProblem(Request.WATCH, { key: 'k', budget: Infinity }), 'ui/watch: "budget" must be a number');
  assert.equal(requestArgsProblem(Request.SUBSCRIBE, { key: 'k', options: [] }), 'ui/subscribe: "options" must be an object');
  assert.equal(requestArgsProblem(Request.GET_NODES, { key: 'k', paths: '/' }), 'ui/get-nodes: "paths" must be an array');
  assert.equal(requestArgsProblem(Request.INVOKE, { key: 'k', path: '/', action: 'a', params: [1] }), null, 'params: any value');
  assert.equal(requestArgsProblem('ui/fly', {}), 'ui/fly has no declared members');
});
