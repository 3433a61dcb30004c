// options/approvals-section.js: the approved cross-origin providers, each revoked with a click.

import { listApprovals, revokeApproval } from '../shared/settings-store.js';
import { h, setChildren } from '../shared/dom.js';
import { $, when } from './page.js';

export async function renderApprovals() {
  const rows = await listApprovals();
  $('approvals-empty').hidden = rows.length > 0;
  $('approvals').hidden = rows.length === 0;
  setChildren($('approvals').tBodies[0], rows.map((r) => {
    // An approval stored without its parts (an older version) shows its whole key.
    return h('tr', { 'data-key': r.key },
      h('td', {}, h('code', { text: r.page ?? r.key })),
      h('td', {}, h('code', { text: r.target ?? '' })),
      h('td', { class: 'muted', text: when(r.at) }),
      h('td', {}, h('button', { type: 'button', class: 'danger', 'data-action': 'revoke', onclick: () => revokeApproval(r.key) }, 'Revoke')));
  }));
}
