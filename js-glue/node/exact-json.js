// exact-json.js: exact numbers on a Node without JSON source access (Node 20). JSON.parse
// there cannot tell 1234567890123456789 from ...800, so lossless-json, which hands each number's
// text to a callback, reads instead, and writes kept numbers back as their text. Every Node
// surface (the client, the CLI, the Playwright library, the bridge) imports this once; on a Node
// with JSON.rawJSON it does nothing. Node-only: build.sh leaves js-glue/node/ out of build/extension.

import { parse, stringify } from 'lossless-json';
import { installFallback } from '../exact-json.js';

installFallback({
  // A repeated key: the last one, as JSON.parse does (lossless-json would throw).
  parse: (text, parseNumber) => parse(text, null, { parseNumber, onDuplicateKey: ({ newValue }) => newValue }),
  stringify: (value, space, numberText) =>
    stringify(value, null, space, [{ test: (v) => numberText(v) !== undefined, stringify: (v) => /** @type {string} */ (numberText(v)) }]),
});
