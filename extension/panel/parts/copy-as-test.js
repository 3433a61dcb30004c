// copy-as-test.js: the History strip's "Test" menu. The History (between the two pinned steps, or
// all of it) becomes a runnable test, copied to the clipboard or saved as a .mjs file: the
// Playwright form (slop-inspector/playwright, any provider) or the Node form (slop-inspector/node,
// a WebSocket provider's address). What each invoke changed is the worker's diff between steps
// (ui/history-diff); the text is written by shared/test-writer.js. Its own module and button, so
// that the History's own files (history-pane.js, history-view.js) stay as they were.

import { Request } from '../../shared/messages.js';
import { h } from '../../shared/dom.js';
import { planTest, writeTest } from '../../shared/test-writer.js';
import { download, fileName } from '../export.js';
import { RowMenu } from './row-menu.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../bridge.js').Bridge} Bridge */
/** @typedef {import('../selection.js').Selection} Selection */

const FORM_TEXT = { playwright: 'Playwright', node: 'Node' };

export class CopyAsTest {
  /** The last test written: {form, text, invokes, range} (for tests). @type {object|null} */
  last = null;

  /**
   * @param {HTMLElement} strip  the history strip (the button goes after its Export button)
   * @param {{store: Store, bridge: Bridge, selection: Selection, toast: import('./toast.js').Toast,
   *   pins: () => number[]}} o  pins: the History's pinned steps (two: the range)
   */
  constructor(strip, o) {
    this.o = o;
    this.menu = new RowMenu(document.body);
    this.button = h('button', {
      type: 'button', class: 'tb icon-btn i-test h-test', 'data-action': 'h-test', 'aria-haspopup': 'menu',
      title: 'Copy as test: the History’s invokes (between the pinned steps, or all) as a runnable test with what each changed',
      'aria-label': 'Copy as test',
      onclick: () => this.open(),
    }, h('span', { class: 'h-test-text', text: 'Test' }));
    const exportBtn = strip.querySelector('[data-action="h-export"]');
    if (exportBtn) exportBtn.after(this.button);
    else strip.append(this.button);
  }

  /** The range the menu works on: the pinned pair, else the whole History. */
  range() {
    const pins = this.o.pins();
    return pins.length === 2 ? { from: Math.min(...pins), to: Math.max(...pins) } : null;
  }

  open() {
    const { selection } = this.o;
    const p = selection.provider();
    const ws = p?.transport?.type === 'ws' && !selection.isRecording();
    const r = this.range();
    const what = r ? `steps ${r.from}–${r.to}` : 'whole History';
    const item = (form, how) => ({
      id: `test-${how}-${form}`,
      label: `${how === 'copy' ? 'Copy' : 'Download'} as ${FORM_TEXT[form]} test${how === 'download' ? ' (.mjs)' : ''}${form === 'node' && !ws ? ' (WebSocket providers only)' : ''}`,
      disabled: form === 'node' && !ws,
      run: () => this.run(form, how),
    });
    const b = this.button.getBoundingClientRect();
    this.menu.show([[item('playwright', 'copy'), item('node', 'copy')], [item('playwright', 'download'), item('node', 'download')]],
      { x: b.left, y: b.bottom + 2 }, this.button);
    this.menu.el?.setAttribute('aria-label', `Copy as test (${what})`);
  }

  /** Writes the test and copies or saves it; every refusal is said in the toast. @param {'playwright'|'node'} form @param {'copy'|'download'} how */
  async run(form, how) {
    let t;
    try {
      t = await this.write(form);
    } catch (e) {
      this.o.toast.show(`Copy as test: ${e.message}`, 6000);
      return null;
    }
    if (how === 'download') {
      download(t.text, fileName('slop', t.name, form, 'test').replace(/\.json$/, '.test.mjs'), 'text/javascript');
      this.o.toast.show(`Saved a ${FORM_TEXT[form]} test of ${t.invokes} invoke${t.invokes === 1 ? '' : 's'}`);
    } else await this.o.toast.copy(t.text, `a ${FORM_TEXT[form]} test of ${t.invokes} invoke${t.invokes === 1 ? '' : 's'}`);
    return t;
  }

  /**
   * The test's text for the shown History: {form, text, invokes, range, name}. Throws an Error
   * with a message for the user (no History, no invoke in the range, no states kept).
   * @param {'playwright'|'node'} form
   */
  async write(form) {
    const { store, bridge, selection } = this.o;
    const key = selection.key;
    const hist = key ? store.histories.get(key) : null;
    if (!hist?.steps.length) throw new Error('there is no History to write a test from yet.');
    const range = this.range();
    const plan = planTest(hist.steps, range);
    if (!plan.invokes.length) throw new Error(`no invoke ${range ? 'between the pinned steps' : 'in the History'}: invoke an affordance first (the test replays the invokes).`);
    const nodes = selection.source()?.nodes;
    const invokes = [];
    // One diff at a time: each moves the worker's replay reader forward.
    for (const w of plan.invokes) {
      const diff = w.to === null ? null : await bridge.request(Request.HISTORY_DIFF, { key, from: w.from, to: w.to });
      const view = [...(diff?.removed ?? []), ...(diff?.changed ?? []).map((c) => c.before)].find((v) => v?.path === w.invoke.path) ?? nodes?.get(w.invoke.path);
      invokes.push({
        step: w.invoke.step, path: w.invoke.path, action: w.invoke.action, paramsText: w.invoke.paramsText,
        status: w.result?.status ?? null, message: w.result?.message,
        dangerous: !!view?.affordances?.some((a) => a.action === w.invoke.action && a.dangerous),
        diff,
      });
    }
    const p = selection.isRecording() ? null : selection.provider();
    const provider = hist.info?.provider ?? p?.provider ?? null;
    const text = writeTest({
      form, provider, transport: p?.transport ?? null, pageUrl: p ? store.pageUrl : null, range, invokes,
      volatile: plan.volatile, generatedAt: new Date().toISOString(),
    });
    this.last = { form, text, invokes: invokes.length, range };
    return { ...this.last, name: provider?.id || 'provider' };
  }
}
