// bridge-kit.js: what the desktop bridge's Node tests share: a browser WebSocket whose handshake
// answer and messages the test gives, and waiting for a condition.

export const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/** fn() once it is truthy (polled), else an error naming `what`. */
export async function waitUntil(fn, what, timeout = 5000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const v = fn();
    if (v) return v;
    await settle(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A browser WebSocket whose handshake answer and messages the test gives. */
export class FakeSocket {
  static made = [];
  constructor(url, protocols) {
    this.url = url;
    this.offered = protocols === undefined ? [] : [protocols].flat();
    this.protocol = '';
    this.readyState = 0;
    this.sent = [];
    this.closedWith = null;
    FakeSocket.made.push(this);
  }
  send(text) { this.sent.push(text); }
  close(code) { this.readyState = 3; this.closedWith = code ?? 1000; }
  /** Opens, selecting `protocol` (the TypeScript server echoes the first one offered). */
  accept(protocol = '') {
    this.protocol = protocol;
    this.readyState = 1;
    this.onopen?.();
  }
  deliver(obj) { this.onmessage?.({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) }); }
  /** The handshake failed (a 401, a 403 or nothing listening: a browser sees only this). */
  fail(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  get messages() { return this.sent.map((t) => JSON.parse(t)); }
}
