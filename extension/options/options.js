// options.js: tokens per provider origin (add, replace, remove; listed masked, never read back),
// approvals (revoke), the String agent's webhook and the desktop bridge (on/off, pairing code,
// bridges that do not pair, address, its status as the worker publishes it, and what it shares,
// each in-page provider with "invoke without asking" for this browser session), and the Agent
// playground's model endpoints (profiles: add, edit, list the endpoint's models, default, step
// limit, state budget and tools at most, API key set or removed but never read back, host access
// asked for from the click that saves), local apps. Writes go straight to chrome.storage through settings-store.js; the
// service worker sees the change (storage.onChanged) and reconnects or disconnects. The token
// therefore never travels in a message, and this page never reads a stored token.
//
// One module per section of the page (*-section.js: each renders its part and listens to its
// controls; page.js has what they share); this file renders them all at first and again when
// storage changes.

import { KEYS, bridgeStatus } from '../shared/settings-store.js';
import { onStorageChanged, extensionBase } from '../shared/browser.js';
import { $ } from './page.js';
import { renderTokens, tokenRequested } from './tokens-section.js';
import { renderApprovals } from './approvals-section.js';
import { renderString } from './string-section.js';
import { renderBridgeSettings, renderBridgeStatus } from './bridge-section.js';
import { renderHistory } from './history-section.js';
import { renderAgentProfiles } from './agent-models-section.js';
import { renderLocalSettings } from './local-apps-section.js';

onStorageChanged((changes, area) => {
  if (area === 'session' && changes[KEYS.OPTIONS_FOCUS]?.newValue) tokenRequested();
  if (area === 'session' && KEYS.BRIDGE_STATUS in changes) renderBridgeStatus(changes[KEYS.BRIDGE_STATUS].newValue);
  if (area === 'local' && KEYS.LOCAL_APPS in changes) renderLocalSettings();
  if (area === 'local' && [KEYS.BRIDGE_ENABLED, KEYS.BRIDGE_URL, KEYS.BRIDGE_TOKEN_INDEX, KEYS.BRIDGE_ALLOW_UNPAIRED].some((k) => k in changes)) renderBridgeSettings();
  if (area !== 'local') return;
  if ('tokenIndex' in changes) renderTokens();
  if ('approvals' in changes) renderApprovals();
  if ('stringWebhookIndex' in changes) renderString();
  if (KEYS.HISTORY_MB in changes || KEYS.HISTORY_STEPS in changes) renderHistory();
  if ([KEYS.AGENT_PROFILES, KEYS.AGENT_KEY_INDEX, KEYS.AGENT_DEFAULT].some((k) => k in changes)) renderAgentProfiles();
});

$('ext-origin').textContent = extensionBase.replace(/\/$/, '');
Promise.all([renderTokens(), renderApprovals(), renderString(), renderHistory(), renderBridgeSettings(), bridgeStatus().then(renderBridgeStatus), tokenRequested(),
  renderAgentProfiles(), renderLocalSettings()])
  .then(() => { document.body.dataset.ready = '1'; });
