// local-apps.js: the "Local apps" strip: the SLOP apps on this computer (descriptors in
// ~/.slop/providers and /tmp/slop/providers, read by the native messaging host), beside the
// page's providers. Each with its name, id, transport (the socket's path, or the command's argv),
// whether its process runs, and Inspect, which connects to it and shows it like any provider. An
// app that runs a command shows the exact argv first and runs only once the user approved that
// command. Directories the host refused and descriptors it ignored are said with the command that
// fixes each, and one that fixes them all; without the host, how to install it.

import { Request } from '../../shared/messages.js';
import { h, setChildren } from '../../shared/dom.js';
import { openOptionsPage } from '../../shared/browser.js';
import { askOptionsSection } from '../../shared/settings-store.js';
import { toggleStrip } from './toolbar.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../../shared/messages.js').LocalAppInfo} LocalAppInfo */

export const INSTALL_COMMAND = 'npx slop-inspector install-host';

/** The argv as a person reads it: words with spaces or quotes quoted. @param {string[]} argv */
export function commandText(argv) {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export class LocalAppsStrip {
  /** The last outcome, for tests: the worker's answer or {error}. */
  last = null;
  /** The app whose command is shown for approval: its id and the argv shown. @type {{id: string, command: string[]}|null} */
  #reviewing = null;
  #stamp = null;

  /**
   * @param {{strip: HTMLElement, button: HTMLButtonElement}} els
   * @param {{store: Store, bridge: Bridge, onSelect: (key: string) => void, copy: (text: string, what: string) => void, toast: {show(text: string): void},
   *          onButton?: () => void}} o  onButton: the bar's button was shown or hidden
   */
  constructor(els, o) {
    this.els = els;
    this.o = o;
    this.message = h('p', { class: 'small', 'data-role': 'local-message', role: 'status' });
    this.body = h('div', { class: 'local-body' });
    els.strip.replaceChildren(h('div', { class: 'local-head' }, h('span', { class: 'strip-title', text: 'Local apps' }),
      h('span', { class: 'muted small', text: 'SLOP apps on this computer, through the native host' })), this.message, this.body);
    els.button.addEventListener('click', () => {
      toggleStrip(els.button, els.strip);
      if (!els.strip.hidden) this.refresh();
      this.render(true);
    });
  }

  /** Asks the worker for local apps (and to follow them); the first time, and after a worker restart. */
  refresh() {
    return this.o.bridge.request(Request.LOCAL_APPS, {}).then((st) => this.o.store.setLocalApps(st), (e) => { this.#say(e.message, 'bad'); });
  }

  /** Opens the strip (the empty state's "Local apps" button). */
  open() {
    if (this.els.strip.hidden) this.els.button.click();
  }

  #say(text, kind = '') {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
  }

  /** @param {string} id @param {string[]} [approveCommand] */
  inspect(id, approveCommand) {
    this.#say(approveCommand ? 'Approved: starting the command…' : 'Connecting…');
    return this.o.bridge.request(Request.LOCAL_OPEN, approveCommand ? { appId: id, approveCommand } : { appId: id })
      .then((r) => {
        this.last = r;
        if (r.needsApproval) {
          this.#reviewing = { id, command: r.command };
          this.#say('');
        } else {
          this.#reviewing = null;
          this.#say('');
          this.o.onSelect(r.key);
          // The user asked to see it: the strip makes room for its tree (the bar's button opens it again).
          if (!this.els.strip.hidden) toggleStrip(this.els.button, this.els.strip, false);
        }
        this.render(true);
        if (r.needsApproval) this.els.strip.querySelector('[data-action="local-approve"]')?.scrollIntoView({ block: 'nearest' });
      }, (e) => {
        this.last = { error: e.message };
        this.#say(e.message, 'bad');
      });
  }

  /** @param {string} key */
  #stop(key) {
    this.o.bridge.request(Request.LOCAL_CLOSE, { key }).catch((e) => this.#say(e.message, 'bad'));
  }

  /**
   * The strip's button says how many apps there are; it is shown once local apps are on (Options),
   * so the bar of a panel that does not use them keeps its room.
   */
  #badge(st) {
    const off = !st || st.state === 'off';
    if (this.els.button.hidden !== off) {
      this.els.button.hidden = off;
      if (off && !this.els.strip.hidden) toggleStrip(this.els.button, this.els.strip, false);
      this.o.onButton?.();
    }
    const n = st?.state === 'ready' ? st.apps.length : 0;
    this.els.button.dataset.count = n ? String(n) : '';
    this.els.button.title = st?.state === 'ready' ? `Local apps: ${n} on this computer` : 'Local apps: SLOP apps on this computer (desktop apps, daemons, command-line tools)';
  }

  render(force = false) {
    const st = this.o.store.localApps;
    this.#badge(st);
    if (this.els.strip.hidden) return;
    if (!force && st === this.#stamp) return;
    this.#stamp = st;
    if (!st) {
      setChildren(this.body, h('p', { class: 'muted small', text: 'Asking the extension…' }));
      return;
    }
    if (st.state !== 'ready') {
      setChildren(this.body, this.#notReady(st));
      return;
    }
    const apps = st.apps.map((a) => this.#app(a));
    setChildren(this.body,
      apps.length ? h('ul', { class: 'local-list' }, apps)
        : h('p', { class: 'muted small', 'data-role': 'local-none', text: `No local app is announced now (in ${st.dirs.join(' and ') || 'the providers directories'}).` }),
      st.fixAll && st.refused.length + st.ignored.length > 1 ? h('p', { class: 'small local-fix-all', 'data-role': 'local-fix-all' },
        h('span', { class: 'muted', text: 'Fix all in a terminal:' }), ' ', h('code', { class: 'local-fix', text: st.fixAll }), ' ',
        h('button', { type: 'button', class: 'small', 'data-action': 'copy-fix-all', onclick: () => this.o.copy(st.fixAll ?? '', 'The fix') }, 'Copy')) : null,
      st.refused.length ? h('div', { class: 'local-refused', 'data-role': 'local-refused' },
        st.refused.map((d) => h('p', { class: 'small' },
          h('span', { class: 'error-text', text: `${d.dir} was not read: ` }), h('span', { text: d.why }),
          this.#fix(d)))) : null,
      st.ignored.length ? h('details', { class: 'local-ignored small', 'data-role': 'local-ignored', open: st.ignored.length <= 5 },
        h('summary', { text: `${st.ignored.length} file${st.ignored.length === 1 ? '' : 's'} not read` }),
        h('ul', {}, st.ignored.map((f) => h('li', { 'data-file': f.file },
          h('code', { text: f.file }), ` in ${f.dir}: ${f.why}`, this.#fix(f),
          f.recreated ? h('div', { class: 'muted', 'data-role': 'local-recreated' },
            'SLOP SDKs write it again as 0644 each time the app starts, so this fix lasts until then.',
            f.direct ? [' Without a descriptor: ', h('code', { text: `npx slop-inspector tree ${f.direct}` })] : null) : null)))) : null);
  }

  /** A refusal's fix: its command (copyable), else its advice. @param {{fix?: string, advice?: string}} x */
  #fix(x) {
    if (x.fix) return [' ', h('span', { class: 'muted', text: 'Fix:' }), ' ', h('code', { class: 'local-fix', text: x.fix })];
    return x.advice ? [' ', h('span', { class: 'muted', text: x.advice })] : null;
  }

  /** @param {import('../../shared/messages.js').LocalAppsState} st */
  #notReady(st) {
    const copy = h('button', { type: 'button', class: 'small', 'data-action': 'copy-install', onclick: () => this.o.copy(INSTALL_COMMAND, 'The install command') }, 'Copy');
    const retry = h('button', { type: 'button', 'data-action': 'local-retry', onclick: () => this.refresh() }, 'Try again');
    const options = h('button', { type: 'button', 'data-action': 'local-options',
      onclick: () => askOptionsSection('local-apps').then(() => openOptionsPage()).catch((e) => this.o.toast.show(e.message)) }, 'Open options');
    const install = st.state === 'no-host' || st.state === 'failed';
    // With the install line below, the words need not say the command again.
    const text = install ? st.message.replace(/ ?(Install it with|Is it installed) .*$/, '') : st.message;
    const words = h('p', { class: st.state === 'connecting' ? 'muted small' : 'small', 'data-role': 'local-state', 'data-state': st.state, text });
    if (install) {
      return [words, h('p', { class: 'local-install' }, h('span', { class: 'muted small', text: 'In a terminal:' }), ' ', h('code', { 'data-role': 'install-command', text: INSTALL_COMMAND }), ' ', copy, ' ', retry)];
    }
    if (st.state === 'off' || st.state === 'no-permission') return [words, h('p', {}, options)];
    return [words];
  }

  /** One app. @param {LocalAppInfo} a */
  #app(a) {
    const t = a.transport;
    const stdio = t.type === 'stdio';
    const proc = a.pid === null ? null : a.alive ? `pid ${a.pid} running` : `pid ${a.pid} not running: stale`;
    const where = t.type === 'unix' ? [h('span', { class: 'muted', text: 'Unix socket ' }), h('code', { text: t.path })]
      : stdio ? [h('span', { class: 'muted', text: 'runs ' }), h('code', { text: commandText(t.command) })]
        : [h('span', { class: 'muted', text: 'WebSocket ' }), h('code', { text: String(t.url) })];
    const reviewing = this.#reviewing?.id === a.id;
    const actions = a.key
      ? [h('button', { type: 'button', class: 'small', 'data-action': 'local-show', onclick: () => this.o.onSelect(a.key) }, 'Show'),
        h('button', { type: 'button', class: 'small', 'data-action': 'local-stop', title: stdio ? 'Stop inspecting it: its command is ended' : 'Stop inspecting it', onclick: () => this.#stop(a.key) }, 'Stop')]
      : stdio && !a.approved
        ? h('button', { type: 'button', class: 'small', 'data-action': 'local-review', 'aria-expanded': String(reviewing),
          onclick: () => {
            this.#reviewing = reviewing ? null : { id: a.id, command: t.command };
            this.render(true);
            this.els.strip.querySelector('[data-action="local-approve"]')?.scrollIntoView({ block: 'nearest' });
          } }, 'Review command…')
        : h('button', { type: 'button', class: 'small primary', 'data-action': 'local-inspect', onclick: () => this.inspect(a.id) }, 'Inspect');
    return h('li', { class: 'local-app', 'data-id': a.id, 'data-stale': String(a.stale) },
      h('div', { class: 'local-line' },
        h('span', { class: 'local-name' }, h('strong', { text: a.name }), ' ', h('span', { class: 'muted mono small', text: a.id })),
        h('span', { class: 'local-actions' }, actions)),
      h('div', { class: 'local-where small' }, where, proc ? h('span', { class: a.stale ? 'warn-text' : 'muted', text: ` · ${proc}` }) : null),
      a.description ? h('div', { class: 'muted small', text: a.description }) : null,
      reviewing && !a.key ? this.#review(a, this.#reviewing.command) : null);
  }

  /** The command, argument by argument, and its approval. @param {LocalAppInfo} a @param {string[]} command */
  #review(a, command) {
    return h('div', { class: 'local-review', 'data-role': 'local-review', role: 'group', 'aria-label': `The command ${a.name} runs` },
      h('p', { class: 'small', text: `${a.name} is started by running this program on your computer, with your rights. Run it only if you trust it:` }),
      h('ol', { class: 'local-argv mono small' }, command.map((arg, i) => h('li', {}, h('span', { class: 'muted', text: i === 0 ? 'program ' : `arg ${i} ` }), h('code', { text: arg })))),
      h('p', { class: 'muted small', text: `Descriptor: ${a.file}. The approval is kept for this app and this exact command; if the command changes, you are asked again.` }),
      h('div', { class: 'state-actions' },
        h('button', { type: 'button', class: 'primary', 'data-action': 'local-approve', onclick: () => this.inspect(a.id, command) }, 'Approve and run'),
        h('button', { type: 'button', 'data-action': 'local-cancel', onclick: () => { this.#reviewing = null; this.render(true); } }, 'Cancel')));
  }
}
