// log-view.js: the bottom pane: the frame log (direction, time, type, size; click for the text)
// and the core's events (results, tasks, errors, resyncs, timeouts, protocol errors).

import { h, setChildren } from '../../shared/dom.js';

const time = (t) => new Date(t).toLocaleTimeString([], { hour12: false }) + `.${String(t % 1000).padStart(3, '0')}`;
const size = (n) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

function eventText(ev) {
  switch (ev.event) {
    case 'result': return `${ev.action ?? ''} on ${ev.path ?? ''}: ${ev.status}${ev.error ? ` (${ev.error.code}: ${ev.error.message})` : ''}`;
    case 'task': return `task ${ev.task_id}: ${ev.status ?? ''}${ev.progress !== undefined ? ` ${Math.round(ev.progress * 100)}%` : ''} ${ev.message ?? ''}`;
    case 'error': return `${ev.code}: ${ev.message}`;
    case 'protocol_error': return `${ev.fatal ? 'FATAL ' : ''}${ev.code}: ${ev.message}`;
    case 'resync': return `${ev.reason}: ${ev.message ?? ''}`;
    case 'timeout': return `${ev.request} ${ev.id} got no answer`;
    case 'closed': return `${ev.request} ${ev.id} ended by disconnect`;
    case 'hello': return `${ev.provider?.name ?? ''} (${ev.provider?.id ?? ''})`;
    case 'provider_event': return `${ev.name}`;
    default: return '';
  }
}

export class LogView {
  constructor(root) {
    this.root = root;
    this.tab = 'frames';
    this.selected = null;
    this.framesEl = h('div', { class: 'log-list', role: 'log' });
    this.eventsEl = h('div', { class: 'log-list', role: 'log' });
    this.textEl = h('pre', { class: 'log-text json', hidden: true });
    this.tabs = h('div', { class: 'log-tabs' },
      h('button', { type: 'button', 'data-tab': 'frames', onclick: () => this.#switch('frames') }, 'Frames'),
      h('button', { type: 'button', 'data-tab': 'events', onclick: () => this.#switch('events') }, 'Events'),
      h('span', { class: 'muted hint', text: 'newest at the bottom · click a frame for its text' }));
    root.replaceChildren(this.tabs, h('div', { class: 'log-body' }, this.framesEl, this.eventsEl, this.textEl));
    this.#switch('frames');
    this.frames = [];
    this.events = [];
  }

  #switch(tab) {
    this.tab = tab;
    for (const b of this.tabs.querySelectorAll('button')) b.classList.toggle('active', b.dataset.tab === tab);
    this.framesEl.hidden = tab !== 'frames';
    this.eventsEl.hidden = tab !== 'events';
    this.textEl.hidden = tab !== 'frames' || !this.selected;
  }

  /** @param {object[]} frames LogEntry[] @param {{t, event}[]} events */
  show(frames, events) {
    const stick = (el) => el.scrollHeight - el.scrollTop - el.clientHeight < 30;
    if (frames !== this.frames) {
      const atEnd = stick(this.framesEl);
      this.frames = frames;
      setChildren(this.framesEl, frames.length ? null : h('div', { class: 'log-empty muted', text: 'No frames yet.' }), frames.map((f) => h('div', {
        class: `log-row dir-${f.dir}${this.selected === f ? ' selected' : ''}`,
        onclick: () => { this.selected = f; this.textEl.textContent = f.text + (f.truncated ? '\n… (cut)' : ''); this.textEl.hidden = false; this.show(this.frames, this.events); },
      },
      h('span', { class: 'mono muted', text: time(f.t) }),
      h('span', { class: 'dir', title: f.dir === 'in' ? 'provider → extension' : 'extension → provider', text: f.dir === 'in' ? '↓' : '↑' }),
      h('span', { class: 'ftype', text: f.type }),
      h('span', { class: 'muted', text: size(f.size) }),
      h('span', { class: 'fpreview mono', text: f.text.slice(0, 160) }))));
      if (atEnd) this.framesEl.scrollTop = this.framesEl.scrollHeight;
    }
    if (events !== this.events) {
      const atEnd = stick(this.eventsEl);
      this.events = events;
      setChildren(this.eventsEl, events.length ? null : h('div', { class: 'log-empty muted', text: 'No events yet: results of invokes, tasks, errors, resyncs and timeouts appear here.' }), events.map((e) => h('div', { class: `log-row ev-${e.event.event}` },
        h('span', { class: 'mono muted', text: time(e.t) }),
        h('span', { class: 'ftype', text: e.event.event }),
        h('span', { class: 'fpreview', text: eventText(e.event) }))));
      if (atEnd) this.eventsEl.scrollTop = this.eventsEl.scrollHeight;
    }
  }
}
