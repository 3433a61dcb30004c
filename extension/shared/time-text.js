// time-text.js: a moment as the UI shows it: the local clock time, 24-hour ("14:03:07"), with the
// milliseconds where the order of frames and steps within one second matters ("14:03:07.250").

/**
 * @param {number} t   epoch ms
 * @param {{ms?: boolean}} [o]   ms: add the milliseconds
 * @returns {string}
 */
export function clockTime(t, { ms = false } = {}) {
  const s = new Date(t).toLocaleTimeString([], { hour12: false });
  return ms ? `${s}.${String(Math.floor(t) % 1000).padStart(3, '0')}` : s;
}
