// options/history-section.js: the History's bounds: steps and memory (the first reached binds).

import { historyMb, setHistoryMb, historySteps, setHistorySteps, HISTORY_STEPS } from '../shared/settings-store.js';
import { $ } from './page.js';

/** The history's bounds: the defaults (1,000 steps, 64 MB) unless the user chose others. */
export async function renderHistory() {
  const [mb, steps] = await Promise.all([historyMb(), historySteps()]);
  $('history-mb').value = String(mb ?? 64);
  const sel = /** @type {HTMLSelectElement} */ ($('history-steps'));
  const n = String(steps ?? HISTORY_STEPS.default);
  // A bound set another way (an older value) is offered as it is.
  if (![...sel.options].some((o) => o.value === n)) sel.append(new Option(`${Number(n).toLocaleString('en-US')} steps`, n));
  sel.value = n;
}

$('history-steps').addEventListener('change', async (e) => {
  const n = Number(/** @type {HTMLSelectElement} */ (e.target).value);
  const m = $('history-message');
  try {
    await setHistorySteps(n);
    m.textContent = n ? `Each provider’s history may now keep ${n.toLocaleString('en-US')} steps (and no more than its memory). A lower bound drops the oldest steps at once; a step a panel views or pins is kept.` : 'Each provider’s history is now bounded by its memory only.';
    m.className = 'form-message ok';
  } catch (err) {
    m.textContent = err.message;
    m.className = 'form-message bad';
  }
});

$('history-mb').addEventListener('change', async (e) => {
  const mb = Number(/** @type {HTMLSelectElement} */ (e.target).value);
  const m = $('history-message');
  try {
    await setHistoryMb(mb === 64 ? null : mb);
    m.textContent = `Each provider’s history may now hold ${mb} MB. A lower bound drops the oldest steps at once; states dropped for a bound too small come back with the app’s next snapshot (a reload).`;
    m.className = 'form-message ok';
  } catch (err) {
    m.textContent = err.message;
    m.className = 'form-message bad';
  }
});
