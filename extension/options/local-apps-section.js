// options/local-apps-section.js: local apps through the native messaging host: the switch, the
// host's state, the directories it refused.

import { localAppsEnabled, setLocalAppsEnabled } from '../shared/settings-store.js';
import { requestNativeMessaging, removeNativeMessaging, onPermissionsChanged } from '../shared/browser.js';
import { h, setChildren } from '../shared/dom.js';
import { Request, Push } from '../shared/messages.js';
import { $, worker, onWorkerPush, onWorkerReconnected } from './page.js';
import { setCodeText } from '../shared/code-text.js';

// --------------------------------------------------------------------------- local apps
// The switch asks for nativeMessaging synchronously in its change handler (Firefox grants a
// permission only from the user's input handler), and stores the setting once it is granted; the
// worker then starts the native host, whose state (and the directories it refused) shows here.

let localFollowed = false;

function sayLocal(text, kind = '') {
  const el = $('local-status');
  setCodeText(el, text);
  el.className = kind ? `form-message ${kind}` : 'form-message';
}

/** @param {import('../shared/messages.js').LocalAppsState} st */
function renderLocalState(st) {
  $('local-install').hidden = st.state !== 'no-host' && st.state !== 'failed';
  if (st.state === 'ready') {
    const n = st.apps.length;
    const waiting = st.apps.filter((a) => a.transport?.type === 'stdio' && !a.approved).length;
    sayLocal(`The native host is running: ${n === 0 ? 'no local app is announced now' : `${n} local app${n === 1 ? '' : 's'} announced`}` +
      `${waiting ? ` (${waiting} run${waiting === 1 ? 's' : ''} a command you have not approved yet: approve it in the panel)` : ''}. They are listed in the panel’s Local apps.`, 'ok');
  } else {
    // The install box below says the command: the words need not say it again.
    const words = $('local-install').hidden ? st.message : st.message.replace(/ ?(Install it with|Is it installed) .*$/, '');
    sayLocal(words, st.state === 'off' || st.state === 'connecting' ? '' : 'bad');
  }
  setChildren($('local-refused'), st.refused.map((d) => h('li', { 'data-dir': d.dir },
    h('span', { text: `${d.dir}: not read: ${d.why}` }), d.fix ? [' Fix: ', h('code', { text: d.fix })] : null)));
}

onWorkerPush((m) => { if (m?.type === Push.LOCAL_APPS) renderLocalState(m); });
// A worker that started again forgot who follows local apps: ask again.
onWorkerReconnected(() => { if (localFollowed) askLocalApps(); });

function askLocalApps() {
  localFollowed = true;
  return worker().request(Request.LOCAL_APPS, {}, 20_000).then(renderLocalState, (e) => sayLocal(e.message, 'bad'));
}

export async function renderLocalSettings() {
  const on = await localAppsEnabled();
  $('local-enabled').checked = on;
  if (on) askLocalApps();
  else sayLocal('Off.');
}

$('local-enabled').addEventListener('change', (e) => {
  const box = /** @type {HTMLInputElement} */ (e.target);
  if (box.checked) {
    const asked = requestNativeMessaging(); // before any await: see browser.js
    sayLocal('Asking the browser for native messaging…');
    asked.then(async (ok) => {
      if (!ok) {
        box.checked = false;
        sayLocal('The browser did not grant native messaging: local apps stay off.', 'bad');
        return;
      }
      await setLocalAppsEnabled(true);
    });
  } else {
    setLocalAppsEnabled(false).then(() => removeNativeMessaging());
  }
});
$('local-retry').addEventListener('click', () => { sayLocal('Trying the native host again…'); askLocalApps(); });
onPermissionsChanged(() => { if ($('local-enabled').checked) askLocalApps(); });
