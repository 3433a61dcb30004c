// subscription-view.js: the subscription strip: what the tree shows (the extension's first
// subscription, or one made here), a form to (re)subscribe with path, depth, max nodes, min
// salience and types (the core checks the options and says what is wrong), and the provider's
// identity, status and capabilities. Words a person reads; the protocol's names in tooltips.

import { h, setChildren } from '../../shared/dom.js';
import { Capability } from '../../../js-glue/core-contract.js';

/** @type {readonly string[]} */
const ALL_CAPABILITIES = Object.values(Capability);
/** A capability in words (its protocol name stays in the chip's tooltip). */
const CAPABILITY_WORDS = { content_refs: 'content references' };

/**
 * The options as a person reads them: "path /inbox · 1 level · at most 200 nodes · salience ≥ 0.5".
 * @param {{path?: string, depth?: unknown, max_nodes?: unknown, filter?: {types?: string[], min_salience?: unknown}}} o
 *   as typed (the core checks them)
 */
export function optionsText(o) {
  const parts = [`path ${o.path ?? '/'}`];
  const d = o.depth;
  if (d !== undefined) parts.push(d === -1 ? 'all levels' : d === 0 ? 'the root only' : typeof d === 'number' ? `${d} level${d === 1 ? '' : 's'} deep` : `depth ${d}`);
  if (o.max_nodes !== undefined) parts.push(typeof o.max_nodes === 'number' ? `at most ${o.max_nodes.toLocaleString('en')} nodes` : `node limit ${o.max_nodes}`);
  if (o.filter?.min_salience !== undefined) parts.push(`salience ≥ ${o.filter.min_salience}`);
  if (o.filter?.types) parts.push(`types ${o.filter.types.join(', ')}`);
  return parts.join(' · ');
}

/** Text → number when it reads as one, else the text (the core reports it). */
function num(text) {
  const t = text.trim();
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? Number(t) : t;
}

export class SubscriptionView {
  /**
   * @param {HTMLElement} root
   * @param {{onApply: (options: object) => void, onReset: () => void}} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    // Each field says what it is in words; the option's protocol name is in its tooltip.
    const input = (name, label, placeholder, title, size = 8) => h('input', { type: 'text', name, placeholder, title: `${title} (${name})`, size: String(size), spellcheck: 'false', 'aria-label': label, 'data-label': label });
    this.inputs = {
      path: input('path', 'Path', '/', 'Absolute path of the subscription root', 14),
      depth: input('depth', 'Depth', 'all', 'Levels below the root: empty or -1 for all of them', 4),
      max_nodes: input('max_nodes', 'Max nodes', 'no limit', 'The provider compacts the lowest-salience subtrees above this many nodes', 7),
      min_salience: input('min_salience', 'Min salience', 'any', 'Only nodes with at least this salience, 0 to 1 (needs the attention capability)', 5),
      types: input('types', 'Types', 'any', 'Only these node types, comma-separated', 18),
    };
    this.form = h('form', { class: 'sub-form', onsubmit: (e) => { e.preventDefault(); this.hooks.onApply(this.options()); } },
      ...Object.values(this.inputs).map((el) => h('label', { class: 'sub-field' }, h('span', { text: el.dataset.label }), el)),
      h('button', { type: 'submit', class: 'small primary', 'data-action': 'subscribe' }, 'Subscribe'),
      this.resetBtn = h('button', { type: 'button', class: 'small', 'data-action': 'sub-reset', onclick: () => this.hooks.onReset() }, 'Back to default'));
    this.status = h('div', { class: 'sub-status' });
    this.error = h('div', { class: 'error-text sub-error', role: 'alert' });
    this.info = h('div', { class: 'provider-info' });
    root.replaceChildren(h('div', { class: 'sub-row' }, h('span', { class: 'strip-title', text: 'Subscription' }), this.form), this.error, this.status, this.info);
  }

  /** The core's message with its option's name ("options.max_nodes") as the field's label ("Max nodes"). */
  #worded(message) {
    return message.replace(/^options\.(?:filter\.)?([a-z_]+)/, (all, name) => this.inputs[name]?.dataset.label ?? all);
  }

  /** The options as typed; blank fields are left out. */
  options() {
    const o = {};
    const v = Object.fromEntries(Object.entries(this.inputs).map(([k, el]) => [k, el.value.trim()]));
    if (v.path) o.path = v.path;
    if (v.depth) o.depth = num(v.depth);
    if (v.max_nodes) o.max_nodes = num(v.max_nodes);
    const filter = {};
    if (v.min_salience) filter.min_salience = num(v.min_salience);
    if (v.types) filter.types = v.types.split(',').map((s) => s.trim()).filter(Boolean);
    if (Object.keys(filter).length) o.filter = filter;
    return o;
  }

  /** Puts options into the form (the current subscription's). */
  fill(options) {
    this.inputs.path.value = options.path ?? '/';
    this.inputs.depth.value = options.depth !== undefined ? String(options.depth) : '';
    this.inputs.max_nodes.value = options.max_nodes !== undefined ? String(options.max_nodes) : '';
    this.inputs.min_salience.value = options.filter?.min_salience !== undefined ? String(options.filter.min_salience) : '';
    this.inputs.types.value = (options.filter?.types ?? []).join(', ');
  }

  /**
   * @param {object|null} provider  ProviderInfo
   * @param {{custom: boolean, options: object, sub: string|null, info: object|null}} current
   * @param {string|null} error   the core's message for the last attempt
   */
  show(provider, current, error) {
    this.error.textContent = error ? this.#worded(error) : '';
    this.error.title = error ?? '';
    this.resetBtn.disabled = !current.custom;
    const s = current.info;
    const opts = current.options ?? {};
    setChildren(this.status,
      h('span', { class: 'muted', text: current.custom ? 'Showing the subscription made here: ' : 'Showing the extension’s own subscription: ' }),
      h('span', { class: 'sub-options', text: optionsText(opts), title: `subscribe options: ${JSON.stringify(opts)}` }),
      s ? h('span', { class: 'muted', text: ` · ${s.state} · v${s.version} · ${s.nodes} nodes mirrored` }) : h('span', { class: 'muted', text: ' · waiting for the snapshot…' }));
    if (!provider) return setChildren(this.info);
    const caps = new Set(provider.capabilities ?? []);
    setChildren(this.info,
      h('span', { class: 'muted', text: 'Provider ' }),
      h('strong', { text: provider.provider?.name ?? '(no hello yet)' }),
      provider.provider ? h('code', { class: 'muted', text: ` ${provider.provider.id} · SLOP ${provider.provider.slop_version}` }) : null,
      h('span', { class: 'muted', text: ` · ${provider.transport.type === 'ws' ? provider.transport.url : 'postMessage (in page)'} · ` }),
      h('span', { class: 'caps', role: 'group', 'aria-label': 'capabilities' }, ALL_CAPABILITIES.map((c) => h('span', { class: `chip cap${caps.has(c) ? ' on' : ' off'}`, 'data-cap': c, title: `${c}: ${caps.has(c) ? 'declared in hello' : 'not declared'}`, text: CAPABILITY_WORDS[c] ?? c })),
        [...caps].filter((c) => !ALL_CAPABILITIES.includes(c)).map((c) => h('span', { class: 'chip cap on', 'data-cap': c, text: c }))));
  }
}
