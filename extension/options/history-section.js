// options/history-section.js: the History's memory bound.

import { historyMb, setHistoryMb } from '../shared/settings-store.js';
import { $ } from './page.js';

/** The history's memory bound: the default (64 MB) unless the user chose another. */
export async function renderHistory() {
  const mb = (await historyMb()) ?? 64;
  $('history-mb').value = String(mb);
}

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
