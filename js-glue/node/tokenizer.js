// tokenizer.js: the tokenizer a state profile counts with in Node (client.profile, the CLI's
// `profile`): o200k_base, the encoding of the OpenAI models most SLOP agents run on, from the npm
// package gpt-tokenizer. TOKENIZER names it with the package's version as installed.

import { createRequire } from 'node:module';
import { countTokens as countO200k } from 'gpt-tokenizer/esm/encoding/o200k_base';

const require = createRequire(import.meta.url);
/** @type {{version: string}} */
const pkg = require('gpt-tokenizer/package.json');

/** The tokenizer as a profile names it: 'o200k_base (gpt-tokenizer 4.0.0)'. */
export const TOKENIZER = `o200k_base (gpt-tokenizer ${pkg.version})`;

/** No special token: "<|endoftext|>" in a provider's string is text, encoded as a model's API encodes it. */
const AS_TEXT = Object.freeze({ disallowedSpecial: new Set(), allowedSpecial: new Set() });

/**
 * The o200k_base tokens of a text.
 * @param {string} text @returns {number}
 */
export function countTokens(text) {
  return countO200k(text, /** @type {any} */ (AS_TEXT));
}
