// agent-endpoint.js: the agent's model endpoints (agent.js runs the loop on them): an endpoint
// config and what is wrong with it, the HTTP request, the wire formats of the two endpoint kinds
// (an OpenAI-compatible SSE stream, an Ollama NDJSON stream) read as they come, the time limits of
// an answer and Stop, the model list, and every endpoint failure said in words (AgentError). Plain
// ES module on `fetch` alone: Node and the extension's service worker. The API key goes only into
// the Authorization header of its endpoint, and is taken out of any text that comes back.

/** Defaults of an endpoint config. */
export const AGENT_DEFAULTS = Object.freeze({
  maxSteps: 8,
  /** The state text's budget (UTF-8 bytes): about 16k tokens, so a local model's context holds it. */
  maxStateBytes: 64 * 1024,
  /** Tools offered per request: OpenAI's limit; more also crowds a local model's context. */
  maxTools: 128,
  /** A tool result sent back to the model is cut to this (UTF-8 bytes). */
  maxResultBytes: 16 * 1024,
  /**
   * How long the model may take to send the first byte of an answer (ms): long enough for a
   * local model to be loaded from disk before it answers.
   */
  firstByteMs: 120_000,
  /** How long a streamed answer may stay silent between two chunks (ms). */
  idleMs: 60_000,
  /** How long a whole run may take (ms); 0: no limit. */
  runMs: 0,
});

/** Where each time limit is set, for the words of a timeout. */
const LIMIT_WHERE = {
  firstByteMs: 'firstByteMs in agent(), or "First byte within" of the profile in Options → Agent models',
  idleMs: 'idleMs in agent(), or "Silence allowed" of the profile in Options → Agent models',
  runMs: 'runMs in agent(), or "Whole run within" of the profile in Options → Agent models',
};

/** The smallest state budget: the envelope and the cut marker must fit. */
const MIN_STATE_BYTES = 512;

/** What the error of a run or of listModels is about (AgentError.kind, trace.error.kind). */
export const AgentErrorKind = Object.freeze({
  CONFIG: 'config',             // the endpoint config itself is wrong (URL, kind, model)
  NOT_CONNECTED: 'not-connected', // no provider to show the model
  UNREACHABLE: 'unreachable',   // fetch failed: nothing answers
  AUTH: 'auth',                 // 401, 403
  RATE_LIMIT: 'rate-limit',     // 429 (retryAfter: seconds, when the endpoint said)
  SERVER: 'server',             // 5xx
  NO_TOOLS: 'no-tools',         // the model does not support tools
  CONTEXT: 'context',           // the request is longer than the model's context
  NOT_FOUND: 'not-found',       // 404: no such path or model
  BAD_REQUEST: 'bad-request',   // any other 4xx
  BAD_RESPONSE: 'bad-response', // an answer that is not the endpoint kind's format
  TIMEOUT: 'timeout',           // a time limit passed: the first byte, a silent stream, the whole run
  INTERNAL: 'internal',         // the loop itself failed (a bug): said, never thrown at a UI
});

/** An endpoint or run failure, said in words. `retryAfter`: seconds (rate-limit only). */
export class AgentError extends Error {
  /** @param {string} kind  an AgentErrorKind @param {string} message @param {{status?: number, retryAfter?: number, limit?: string}} [extra] */
  constructor(kind, message, extra = {}) {
    super(message);
    this.name = 'AgentError';
    this.kind = kind;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.retryAfter !== undefined) this.retryAfter = extra.retryAfter;
  }
}

/**
 * @typedef {{id: string, name: string, arguments: string}} ReplyCall  a tool call as the model streamed it
 * @typedef {import('./agent.js').Message} Message
 * @typedef {{text: string, calls: ReplyCall[], finish: string|null, usage: {promptTokens: number|null, completionTokens: number|null, totalTokens: number|null}|null}} Reply
 * @typedef {ReplyCall & {parsed?: any, error?: string}} ToolCall  parsed: the model's arguments (arbitrary JSON)
 * @typedef {{signal?: AbortSignal, onDelta?: (text: string) => void, apiKey?: string|null, maxStateBytes?: number, watch?: AnswerWatch|null}} ReadOptions
 * @typedef {{chatPath: string, modelsPath: string, label: string, read: (res: Response, o: ReadOptions) => Promise<Reply>, body: (b: {model: string,
 *   messages: Message[], tools: object[], temperature?: number}) => object, assistant: (text: string, calls: ToolCall[]) => Message,
 *   toolResult: (call: ToolCall, content: string) => Message, models: (json: any) => {id: string}[]}} Wire  json: a model list (arbitrary JSON)
 */
/** @type {Record<string, Wire>} */
const WIRE = {
  openai: {
    // After the API prefix (endpointBase): "/v1" unless the address names its own version.
    chatPath: '/chat/completions',
    modelsPath: '/models',
    label: 'OpenAI-compatible',
    // No "tools" member when there are none: OpenAI refuses an empty list.
    body: ({ model, messages, tools, temperature }) => ({
      model, messages, ...(tools.length ? { tools } : {}), stream: true, stream_options: { include_usage: true },
      ...(temperature === undefined ? {} : { temperature }),
    }),
    read: readOpenAiReply,
    assistant: (text, calls) => ({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    }),
    toolResult: (call, content) => ({ role: 'tool', tool_call_id: call.id, content }),
    models: (json) => /** @type {any[]} */ (Array.isArray(json?.data) ? json.data : []).map((m) => ({ id: String(m?.id ?? '') })).filter((m) => m.id),
  },
  ollama: {
    chatPath: '/chat',
    modelsPath: '/tags',
    label: 'Ollama',
    body: ({ model, messages, tools, temperature }) => ({
      model, messages, ...(tools.length ? { tools } : {}), stream: true, ...(temperature === undefined ? {} : { options: { temperature } }),
    }),
    read: readOllamaReply,
    // Ollama takes arguments as an object: malformed ones go back as {} (the tool result says why).
    assistant: (text, calls) => ({
      role: 'assistant',
      content: text,
      tool_calls: calls.map((c) => ({ function: { name: c.name, arguments: isObject(c.parsed) ? c.parsed : {} } })),
    }),
    toolResult: (call, content) => ({ role: 'tool', tool_name: call.name, content }),
    models: (json) => /** @type {any[]} */ (Array.isArray(json?.models) ? json.models : []).map((m) => ({ id: String(m?.name ?? m?.model ?? '') })).filter((m) => m.id),
  },
};

/** Its members: JSON from outside, any. @param {unknown} v @returns {v is Record<string, any>} */ const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** An endpoint kind WIRE knows. @param {unknown} kind @returns {kind is string} */ const isKind = (kind) => Object.hasOwn(WIRE, /** @type {PropertyKey} */ (kind));

// ------------------------------------------------------------------------------- the config

/** A path that ends in an API version ("/v1", "/v1beta/openai", "/openai/v1"): OpenAI-compatible servers' prefixes. */
const VERSIONED = /\/v\d+[a-z0-9]*(?:\/openai)?$/i;

/**
 * The endpoint's address as requests use it: scheme, host, port and path, without credentials,
 * query or fragment, and its API prefix, to which the kind's paths are added. OpenAI-compatible:
 * the path as given when it ends in a version, as the OpenAI clients take a base URL
 * ("https://api.openai.com/v1", Gemini's ".../v1beta/openai", Groq's ".../openai/v1"), else
 * the path plus "/v1" ("http://127.0.0.1:8080", "https://openrouter.ai/api"). Ollama: the path
 * plus "/api" (a pasted ".../api" is taken as it is).
 * @param {string|undefined} kind @param {unknown} baseUrl @returns {{base: string, prefix: string, problem: string|null}}  base: shown in the trace
 */
function endpointBase(kind, baseUrl) {
  if (typeof baseUrl !== 'string' || !baseUrl.trim()) return { base: '', prefix: '', problem: 'no endpoint URL is set' };
  let url;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return { base: '', prefix: '', problem: `"${baseUrl.slice(0, 100)}" is not a URL (expected http://host:port)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { base: '', prefix: '', problem: `the endpoint URL must be http:// or https://, not ${url.protocol}` };
  if (url.username || url.password) return { base: '', prefix: '', problem: 'the endpoint URL must not hold credentials: set the API key instead' };
  const path = url.pathname.replace(/\/+$/, '');
  const base = `${url.origin}${path}`;
  if (kind === 'ollama') return { base, prefix: path.endsWith('/api') ? base : `${base}/api`, problem: null };
  return { base, prefix: VERSIONED.test(path) ? base : `${base}/v1`, problem: null };
}

/**
 * The URLs an endpoint config's requests go to (chat, model list), or null when the config's kind
 * or address is not usable (endpointProblem says why).
 * @param {{kind?: string, baseUrl?: string}} config
 * @returns {{chat: string, models: string}|null}
 */
export function endpointUrls(config) {
  if (!isObject(config) || !isKind(config.kind)) return null;
  const { prefix, problem } = endpointBase(config.kind, config.baseUrl);
  if (problem) return null;
  return { chat: prefix + WIRE[config.kind].chatPath, models: prefix + WIRE[config.kind].modelsPath };
}

/**
 * What is wrong with an endpoint config, in words, or null.
 * @param {{kind?: string, baseUrl?: string, apiKey?: string|null, model?: string, maxSteps?: number, maxStateBytes?: number,
 *   maxTools?: number, temperature?: number, firstByteMs?: number, idleMs?: number, runMs?: number}} config
 * @param {{needModel?: boolean}} [o]
 */
export function endpointProblem(config, { needModel = true } = {}) {
  if (!isObject(config)) return 'the endpoint config must be an object';
  if (!isKind(config.kind)) return `the endpoint kind must be "openai" or "ollama", not ${JSON.stringify(config.kind)}`;
  const { problem } = endpointBase(config.kind, config.baseUrl);
  if (problem) return problem;
  if (config.apiKey != null && typeof config.apiKey !== 'string') return 'the API key must be a string';
  if (needModel && (typeof config.model !== 'string' || !config.model.trim())) return 'no model is chosen';
  if (config.maxSteps !== undefined && !(Number.isInteger(config.maxSteps) && config.maxSteps >= 1 && config.maxSteps <= 100)) {
    return 'maxSteps must be a whole number from 1 to 100';
  }
  if (config.maxStateBytes !== undefined && !(Number.isInteger(config.maxStateBytes) && config.maxStateBytes >= MIN_STATE_BYTES)) {
    return `maxStateBytes must be a whole number of at least ${MIN_STATE_BYTES}`;
  }
  if (config.maxTools !== undefined && !(Number.isInteger(config.maxTools) && config.maxTools >= 1)) {
    return 'maxTools must be a whole number of at least 1';
  }
  if (config.temperature !== undefined && !(typeof config.temperature === 'number' && config.temperature >= 0 && config.temperature <= 2)) {
    return 'temperature must be a number from 0 to 2';
  }
  for (const k of /** @type {const} */ (['firstByteMs', 'idleMs'])) {
    if (config[k] !== undefined && !(Number.isInteger(config[k]) && config[k] >= 100)) return `${k} must be a whole number of milliseconds, at least 100`;
  }
  if (config.runMs !== undefined && !(Number.isInteger(config.runMs) && config.runMs >= 0)) return 'runMs must be a whole number of milliseconds (0: no limit)';
  return null;
}

// ------------------------------------------------------------------------------------ HTTP

/** The key taken out of a text that came back from an endpoint (an error may echo it). @param {unknown} text @param {string|null} [apiKey] */
function scrub(text, apiKey) {
  const s = String(text ?? '');
  return apiKey ? s.split(apiKey).join('[API key]') : s;
}

/** Seconds to wait from a Retry-After (seconds or an HTTP date) or retry-after-ms header, or null. @param {Headers} headers */
function retryAfterSeconds(headers) {
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms / 1000);
  const v = headers.get('retry-after');
  if (!v) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.ceil(Number(v));
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : null;
}

const NO_TOOLS_RE = /does not support tools|(?:not|n't) support (?:tool|function)|no endpoints? found that supports? tool|tool use is not supported|tool[_ ]choice\b.*\brequires|tools? param(?:eter)?s? requires?|function calling is not (?:supported|enabled)/i;
const CONTEXT_RE = /context[_ ]length|context (?:size|window)|maximum context|exceeds? (?:the )?(?:available )?context|exceed_context|prompt is too long|too many tokens|input length exceeds/i;

/** What an endpoint's error body says: its message (OpenAI's error.message, Ollama's error), cut short. @param {string} text */
function errorDetail(text) {
  let msg = text;
  try {
    const j = JSON.parse(text);
    msg = j?.error?.message ?? (typeof j?.error === 'string' ? j.error : null) ?? j?.message ?? j?.detail ?? text;
  } catch { /* not JSON: the text as it is */ }
  msg = String(msg).replace(/\s+/g, ' ').trim();
  return msg.length > 300 ? `${msg.slice(0, 300)}…` : msg;
}

/** A state budget as the user set it: "64 KiB", "9.8 KiB", "512 bytes". @param {number} bytes */
function budgetText(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  return `${bytes % 1024 === 0 ? bytes / 1024 : (bytes / 1024).toFixed(1)} KiB`;
}

/**
 * The request did not fit the model's context: what to lower, and where, in both worlds (the
 * extension's Options, the Node client's endpoint config). @param {number} [maxStateBytes]
 */
function contextAdvice(maxStateBytes) {
  const now = maxStateBytes && maxStateBytes > 0 ? `now ${budgetText(maxStateBytes)}: ` : '';
  return `The request is longer than the model's context. Lower the state budget (${now}Options → Agent models → State budget in the extension, maxStateBytes in the Node client) or choose a model with a longer context.`;
}

/**
 * What an endpoint's error text is about, when it says: a model without tools, or a request over
 * the model's context; else null. The one reading of an error's words, for an HTTP error answer and
 * for an error sent in the middle of a streamed answer alike. @param {string} detail
 */
function errorKindOf(detail) {
  if (NO_TOOLS_RE.test(detail)) return AgentErrorKind.NO_TOOLS;
  if (CONTEXT_RE.test(detail)) return AgentErrorKind.CONTEXT;
  return null;
}

/** An HTTP error answer in words. @param {Response} res @param {string} bodyText @param {{url: URL, model: string, apiKey: string|null, maxStateBytes: number}} o */
function httpError(res, bodyText, { url, model, apiKey, maxStateBytes }) {
  const detail = scrub(errorDetail(bodyText), apiKey);
  const said = detail ? ` The endpoint said: ${detail}` : '';
  const status = res.status;
  const where = `${url.origin}${url.pathname}`;
  if (status === 401 || status === 403) {
    return new AgentError(AgentErrorKind.AUTH, apiKey
      ? `The endpoint refused the API key (HTTP ${status}): check the key set for ${url.origin}.${said}`
      : `The endpoint needs an API key (HTTP ${status}): set one for ${url.origin}.${said}`, { status });
  }
  if (status === 429) {
    const retryAfter = retryAfterSeconds(res.headers);
    return new AgentError(AgentErrorKind.RATE_LIMIT, retryAfter === null
      ? `The endpoint is rate-limiting requests (HTTP 429) and did not say for how long. Nothing was retried.${said}`
      : `The endpoint is rate-limiting requests (HTTP 429): it asks to wait ${retryAfter} s before trying again. Nothing was retried.${said}`,
    { status, ...(retryAfter === null ? {} : { retryAfter }) });
  }
  const kind = errorKindOf(detail);
  if (kind === AgentErrorKind.NO_TOOLS) {
    return new AgentError(kind, `The model "${model}" does not support tools (function calling): choose a model that does.${said}`, { status });
  }
  if (kind === AgentErrorKind.CONTEXT) {
    return new AgentError(kind, `${contextAdvice(maxStateBytes)}${said}`, { status });
  }
  if (status === 404) return new AgentError(AgentErrorKind.NOT_FOUND, `Nothing at ${where}, or no model "${model}" there (HTTP 404).${said}`, { status });
  if (status >= 500) return new AgentError(AgentErrorKind.SERVER, `The endpoint failed (HTTP ${status}). Nothing was retried.${said}`, { status });
  return new AgentError(AgentErrorKind.BAD_REQUEST, `The endpoint refused the request (HTTP ${status}).${said}`, { status });
}

/**
 * An error the endpoint sent in the middle of its answer (OpenAI's `error` member, Ollama's), in
 * words: what errorKindOf reads in it, else a failure of the server. @param {object} body  what holds the error @param {{apiKey?: string|null, maxStateBytes?: number}} o
 */
function answerError(body, { apiKey, maxStateBytes }) {
  const detail = scrub(errorDetail(JSON.stringify(body)), apiKey);
  const kind = errorKindOf(detail);
  if (kind === AgentErrorKind.NO_TOOLS) return new AgentError(kind, `The model does not support tools (function calling). The endpoint said: ${detail}`);
  if (kind === AgentErrorKind.CONTEXT) return new AgentError(kind, `${contextAdvice(maxStateBytes)} The endpoint said: ${detail}`);
  return new AgentError(AgentErrorKind.SERVER, `The endpoint failed during its answer. Nothing was retried. The endpoint said: ${detail}`);
}

/** Thrown when the run's AbortSignal fires. */
class Stopped extends Error {
  constructor() { super('stopped'); this.name = 'Stopped'; }
}

/**
 * The time limits of one answer of the model, and Stop. The request and the reading of its body
 * are ended by our own hands: the fetch is aborted and the body's reader cancelled, since an
 * aborted fetch alone does not always end a body read (Node's fetch loses the abort of a stream
 * after a garbage collection). `expired` says which limit ended it.
 */
class AnswerWatch {
  /** @type {ReadableStreamDefaultReader|null} */
  reader = null;
  /** @type {{limit: 'firstByteMs'|'idleMs'|'runMs', ms: number}|null} */
  expired = null;
  #ctl = new AbortController();
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  #timer;
  #onStop;

  /**
   * @param {AbortSignal|undefined} stop  the run's Stop
   * @param {{firstByteMs: number, idleMs: number, runMs: number, deadline: number}} limits  deadline: the run's end (now() ms), or Infinity
   */
  constructor(stop, limits) {
    this.stop = stop;
    this.limits = limits;
    this.signal = this.#ctl.signal;
    this.#onStop = () => this.#end();
    if (stop?.aborted) this.#end();
    else stop?.addEventListener('abort', this.#onStop, { once: true });
    this.arm('firstByteMs');
  }

  /** Starts (again) the wait for the next bytes, under `limit` or the run's own end if sooner. @param {'firstByteMs'|'idleMs'} limit */
  arm(limit) {
    clearTimeout(this.#timer);
    const ms = this.limits[limit];
    const left = this.limits.deadline - now();
    const [which, wait] = left < ms ? ['runMs', left] : [limit, ms];
    this.#timer = setTimeout(() => {
      this.expired ??= { limit: /** @type {any} */ (which), ms: which === 'runMs' ? this.limits.runMs : ms };
      this.#end();
    }, Math.max(0, wait));
  }

  #end() {
    this.#ctl.abort();
    this.reader?.cancel().catch(() => {});
  }

  /** Stopped or timed out: the error to throw, else null. */
  failure() {
    if (this.stop?.aborted) return new Stopped();
    if (!this.expired) return null;
    const s = (/** @type {number} */ ms) => `${Math.round(ms / 100) / 10} s`;
    const { limit, ms } = this.expired;
    const what = limit === 'firstByteMs' ? `The model sent nothing for ${s(ms)} after the request (its first-byte limit): a local model may still be loading.`
      : limit === 'idleMs' ? `The model's answer stopped for ${s(ms)} in the middle of its stream (its silence limit).`
        : `The run took longer than its limit of ${s(ms)}.`;
    return new AgentError(AgentErrorKind.TIMEOUT, `${what} Nothing was retried. To wait longer, raise ${LIMIT_WHERE[limit]}.`, { limit });
  }

  done() {
    clearTimeout(this.#timer);
    this.stop?.removeEventListener('abort', this.#onStop);
  }
}

/** Stop or a time limit ended the wait: throws the watch's error (it says which limit), else Stopped. @param {AnswerWatch|null} [watch] @param {AbortSignal} [signal] */
function throwIfEnded(watch, signal) {
  const f = watch?.failure();
  if (f) throw f;
  if (signal?.aborted) throw new Stopped();
}

/** fetch, with a failure to connect said in words, Stop as Stopped, and the watch's limits. @param {URL} url
 * @param {{method?: string, body?: string, accept?: string}} init @param {{signal?: AbortSignal, apiKey?: string|null, watch?: AnswerWatch|null}} o */
async function request(url, init, { signal, apiKey, watch = null }) {
  const headers = /** @type {Record<string, string>} */ ({ accept: init.accept ?? '*/*' });
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  try {
    return await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, signal: watch?.signal ?? signal, credentials: 'omit', redirect: 'error' });
  } catch (/** @type {any} */ e) { // whatever fetch threw
    throwIfEnded(watch, signal);
    const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'fetch failed';
    if (/redirect/i.test(String(cause))) {
      // Not followed, so the key goes nowhere but the address set.
      throw new AgentError(AgentErrorKind.BAD_RESPONSE, `The endpoint at ${url.origin}${url.pathname} answered with a redirect, which is not followed: set the address it redirects to.`);
    }
    throw new AgentError(AgentErrorKind.UNREACHABLE, `Nothing answers at ${url.origin}${url.pathname}: ${scrub(cause, apiKey)}. Is the model server running at that address?`);
  }
}

/**
 * The lines of a streamed body, decoded as UTF-8 across chunk boundaries. With a watch: each chunk
 * starts the silence limit again, and Stop or a limit cancels the reader (the read then ends).
 * @param {ReadableStream<Uint8Array>|null} body  a streamed answer's, never null @param {AbortSignal} [signal] @param {AnswerWatch|null} [watch]
 */
async function* bodyLines(body, signal, watch = null) {
  const reader = /** @type {ReadableStream<Uint8Array>} */ (body).getReader();
  if (watch) watch.reader = reader;
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (/** @type {any} */ e) { // whatever the read threw
        throwIfEnded(watch, signal);
        throw new AgentError(AgentErrorKind.UNREACHABLE, `The endpoint's stream broke off: ${e?.cause?.code ?? e?.message ?? e}`);
      }
      throwIfEnded(watch, signal);
      if (chunk.done) break;
      watch?.arm('idleMs');
      buf += decoder.decode(chunk.value, { stream: true });
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        yield buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
      }
    }
    buf += decoder.decode();
    if (buf) yield buf.replace(/\r$/, '');
  } finally {
    // A reader that stops early (the answer's end, an error, Stop) lets the connection go.
    await reader.cancel().catch(() => {});
  }
}

/** @param {string} text @param {string} wire */
function parseJsonLine(text, wire) {
  try {
    return JSON.parse(text);
  } catch {
    throw new AgentError(AgentErrorKind.BAD_RESPONSE, `The endpoint's stream is not ${wire} JSON: ${JSON.stringify(text.slice(0, 120))}`);
  }
}

/** A reply being read: text, tool calls by index, usage, finish reason. @returns {Reply} */
function newReply() {
  return { text: '', calls: [], usage: null, finish: null };
}

/** Reads an OpenAI-compatible stream (SSE `data:` lines up to `[DONE]`), or a whole JSON answer. @param {Response} res @param {ReadOptions} o */
async function readOpenAiReply(res, { signal, onDelta, apiKey, maxStateBytes, watch = null }) {
  const reply = newReply();
  const byIndex = new Map();
  const takeCalls = (/** @type {unknown} */ list) => {
    for (const [pos, tc] of (Array.isArray(list) ? list : []).entries()) {
      const index = Number.isInteger(tc?.index) ? tc.index : pos;
      let call = byIndex.get(index);
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        byIndex.set(index, call);
        reply.calls.push(call);
      }
      if (tc?.id) call.id = String(tc.id);
      if (tc?.function?.name) call.name += String(tc.function.name);
      if (tc?.function?.arguments != null) {
        call.arguments += typeof tc.function.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function.arguments);
      }
    }
  };
  const takeUsage = (/** @type {any} */ u) => { // the endpoint's usage member: arbitrary JSON
    if (!isObject(u)) return;
    reply.usage = { promptTokens: u.prompt_tokens ?? null, completionTokens: u.completion_tokens ?? null, totalTokens: u.total_tokens ?? null };
  };
  const streamError = (/** @type {unknown} */ err) => answerError({ error: err }, { apiKey, maxStateBytes });

  const type = res.headers.get('content-type') ?? '';
  if (/application\/json/i.test(type)) {
    // A server that ignores stream: true answers with one completion.
    const j = parseJsonLine(await (watch ? untilStopped(res.text(), watch.signal) : res.text()), 'OpenAI-compatible');
    if (j?.error) throw streamError(j.error);
    const m = j?.choices?.[0]?.message ?? {};
    if (typeof m.content === 'string' && m.content) { reply.text = m.content; onDelta?.(m.content); }
    takeCalls(m.tool_calls);
    reply.finish = j?.choices?.[0]?.finish_reason ?? null;
    takeUsage(j?.usage);
    return reply;
  }
  if (!/text\/event-stream/i.test(type)) {
    throw new AgentError(AgentErrorKind.BAD_RESPONSE, `The endpoint did not answer with an OpenAI-compatible stream (content-type: ${type || 'none'}): is the URL that of a /v1/chat/completions server?`);
  }
  let done = false;
  for await (const line of bodyLines(res.body, signal, watch)) {
    if (!line.startsWith('data:')) continue; // blank separators, "event:" and ": keep-alive" comments
    const data = line.slice(5).trim();
    if (data === '[DONE]') { done = true; break; }
    if (!data) continue;
    const chunk = parseJsonLine(data, 'OpenAI-compatible');
    if (chunk?.error) throw streamError(chunk.error);
    const choice = chunk?.choices?.[0];
    const delta = choice?.delta ?? {};
    if (typeof delta.content === 'string' && delta.content) {
      reply.text += delta.content;
      onDelta?.(delta.content);
    }
    takeCalls(delta.tool_calls);
    if (choice?.finish_reason) reply.finish = choice.finish_reason;
    takeUsage(chunk?.usage);
  }
  if (!done && !reply.finish) throw new AgentError(AgentErrorKind.BAD_RESPONSE, 'The endpoint\'s stream ended before its answer did (no [DONE]).');
  return reply;
}

/** Reads an Ollama /api/chat stream: one JSON object a line, up to `done: true`. @param {Response} res @param {ReadOptions} o */
async function readOllamaReply(res, { signal, onDelta, apiKey, maxStateBytes, watch = null }) {
  const reply = newReply();
  const type = res.headers.get('content-type') ?? '';
  if (!/ndjson|json/i.test(type)) {
    throw new AgentError(AgentErrorKind.BAD_RESPONSE, `The endpoint did not answer with an Ollama stream (content-type: ${type || 'none'}): is the URL that of an Ollama server?`);
  }
  let done = false;
  for await (const line of bodyLines(res.body, signal, watch)) {
    if (!line.trim()) continue;
    const chunk = parseJsonLine(line, 'Ollama');
    if (chunk?.error) throw answerError(chunk, { apiKey, maxStateBytes });
    const m = chunk?.message ?? {};
    if (typeof m.content === 'string' && m.content) {
      reply.text += m.content;
      onDelta?.(m.content);
    }
    for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const args = tc?.function?.arguments;
      reply.calls.push({
        id: tc?.id ? String(tc.id) : '',
        name: String(tc?.function?.name ?? ''),
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      });
    }
    if (chunk?.done) {
      done = true;
      reply.finish = chunk.done_reason ?? 'stop';
      reply.usage = { promptTokens: chunk.prompt_eval_count ?? null, completionTokens: chunk.eval_count ?? null,
        totalTokens: chunk.prompt_eval_count != null && chunk.eval_count != null ? chunk.prompt_eval_count + chunk.eval_count : null };
      break;
    }
  }
  if (!done) throw new AgentError(AgentErrorKind.BAD_RESPONSE, 'The endpoint\'s stream ended before its answer did (no "done": true).');
  return reply;
}

// ---------------------------------------------------------------------------- list models

/**
 * The models an endpoint offers: GET /v1/models (OpenAI-compatible) or /api/tags (Ollama).
 * Throws AgentError (in words) when the endpoint fails.
 * @param {{kind: 'openai'|'ollama', baseUrl: string, apiKey?: string|null, firstByteMs?: number, idleMs?: number}} endpoint
 * @param {{signal?: AbortSignal}} [o]
 * @returns {Promise<{id: string}[]>}
 */
export async function listModels(endpoint, { signal } = {}) {
  const problem = endpointProblem(endpoint, { needModel: false });
  if (problem) throw new AgentError(AgentErrorKind.CONFIG, `The endpoint is not set right: ${problem}.`);
  const wire = WIRE[endpoint.kind];
  const url = new URL(endpointBase(endpoint.kind, endpoint.baseUrl).prefix + wire.modelsPath);
  const apiKey = endpoint.apiKey || null;
  // A model list also ends: the same first-byte limit as a run's answer (a server that takes
  // the request and never answers leaves "List models" waiting otherwise).
  const firstByteMs = endpoint.firstByteMs ?? AGENT_DEFAULTS.firstByteMs;
  const watch = new AnswerWatch(signal, { firstByteMs, idleMs: endpoint.idleMs ?? AGENT_DEFAULTS.idleMs, runMs: 0, deadline: Infinity });
  let res, text;
  try {
    res = await request(url, { accept: 'application/json' }, { signal, apiKey, watch });
    text = await untilStopped(res.text(), watch.signal);
  } catch (e) {
    const f = watch.failure();
    if (f instanceof AgentError) throw f;
    if (e instanceof Stopped || f) throw new AgentError(AgentErrorKind.UNREACHABLE, 'Stopped before the endpoint answered.');
    throw e;
  } finally {
    watch.done();
  }
  if (!res.ok) throw httpError(res, text, { url, model: '', apiKey, maxStateBytes: 0 });
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AgentError(AgentErrorKind.BAD_RESPONSE, `The endpoint's model list is not JSON: is ${url.origin} an ${wire.label} server?`);
  }
  return wire.models(json);
}

/** Resolves with the promise, or rejects with Stopped when the signal fires first. @template T @param {Promise<T>} promise @param {AbortSignal} [signal] @returns {Promise<T>} */
function untilStopped(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new Stopped());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}

const now = () => (globalThis.performance?.now ? globalThis.performance.now() : Date.now());

export { LIMIT_WHERE, MIN_STATE_BYTES, WIRE, isObject, isKind, endpointBase, scrub, httpError, Stopped, AnswerWatch, request, untilStopped, now };
