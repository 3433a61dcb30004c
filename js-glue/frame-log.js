// frame-log.js: a consumer session's log entry for one frame (what the panel's Log shows, what the
// Node client's frames() returns). Pure: the benchmark measures it as the worker runs it.

/** Entries a session keeps, and the text kept per entry (longer frames are cut and marked). */
export const FRAME_LOG = Object.freeze({ entries: 300, textMax: 16384 });

const encoder = new TextEncoder();
const ASCII = /^[\x00-\x7f]*$/;
/** @param {string} s */
function utf8Length(s) {
  if (ASCII.test(s)) return s.length; // most frames: no copy to count them
  return s.length < 4096 ? encoder.encode(s).length : Math.round(s.length * 1.1); // estimate for big frames
}

/**
 * @typedef {{dir: 'in'|'out', t: number, type: string, size: number, text: string, truncated: boolean}} LogEntry
 *   size: in UTF-8 bytes (estimated for big frames); text: cut at FRAME_LOG.textMax
 */

/**
 * A log entry for one frame. `type`: the frame's "type" as the core read it when it took the
 * frame (SlopConsumer.frameType(), "" for none), so the log never parses a frame again; without
 * it (frames the core wrote) the type is read here, for display only.
 * @param {'in'|'out'} dir @param {string|Uint8Array} text @param {string} [type]
 * @returns {LogEntry}
 */
export function logEntry(dir, text, type = undefined) {
  if (typeof type === 'string') type = type || '?';
  else {
    type = '?';
    if (typeof text === 'string' && text.length <= 1 << 20) {
      try {
        const m = JSON.parse(text);
        if (m && typeof m.type === 'string') type = m.type.slice(0, 40);
      } catch { /* left as "?" */ }
    }
  }
  const str = typeof text === 'string' ? text : `<${text.byteLength} binary bytes>`;
  const truncated = str.length > FRAME_LOG.textMax;
  return {
    dir, t: Date.now(), type: /** @type {string} */ (type), // set above in every branch
    size: typeof text === 'string' ? utf8Length(text) : text.byteLength,
    text: truncated ? str.slice(0, FRAME_LOG.textMax) : str,
    truncated,
  };
}
