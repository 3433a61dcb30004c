// settings/keys.js: where the user's settings are kept in extension storage (the storage keys,
// one table for every feature's module beside this one).
// The features' modules read and write through shared/browser.js only.
//
// chrome.storage.local
//   tokens      {[providerOrigin]: token}           read only by the service worker (tokenFor)
//   tokenIndex  {[providerOrigin]: {setAt, length}}  what the options page lists: never the token
//   approvals   {[approvalKey]: {at, page, target}}  key and parts come from the core (classifyTarget)
//   manualProviders     {[wsUrl]: {addedAt}}                  "Connect to…": providers no page announces
//   stringWebhook       "http://127.0.0.1:3923/webhook/wh_…"  read only by the service worker (a secret)
//   stringWebhookIndex  {origin, setAt, tokenLength, agentId?}  what pages show: never the token
//   bridgeEnabled       true|false                            share SLOP apps with the desktop bridge
//   bridgeUrl           "ws://127.0.0.1:9339/slop-bridge"     where the desktop hosts it (loopback)
//   bridgeToken         "<pairing code>"                      normalised; read only by the service worker (a secret)
//   bridgeTokenIndex    {setAt, length}                       what pages show: never the token
//   bridgeAllowUnpaired true|false                            use a bridge that does not prove a pairing code
//   localApps           true|false                            reach local apps through the native host
//   localApprovals      {[descriptorId]: {command, at}}       stdio commands the user approved, each exactly
//   historyMb           64                                    what each provider's history may hold (MB)
//   historySteps        1000 | 0                              ...and how many steps (0: no step bound, memory only)
//   agentProfiles       {[id]: AgentProfile}                  model endpoints for the Agent playground:
//                                                             never the key
//   agentKeys           {[id]: "<API key>"}                   read only by the service worker (a secret)
//   agentKeyIndex       {[id]: {setAt, length}}               what pages show: never the key
//   agentDefault        "<profile id>"                        the profile the playground starts with
// chrome.storage.session
//   denied      {[approvalKey]: at}                  "Deny" in the popup, for this browser session
//   bridgeStatus  BridgeStatus (desktop-bridge.js)   written by the worker, shown by popup and options
//   bridgeTrust   {[trustKey]: {name, at}}           providers the desktop may invoke without asking:
//                                                    for this browser session only, never in local
//   optionsFocus  {origin, at} | {section, at}       "Open options" after a refusal: the options page
//                                                    fills that provider in and focuses its token field;
//                                                    or opens at a section (the Playground: Agent models)
//   localOpen     {[descriptorId]: at}              local apps being inspected: opened again when the
//                                                    worker starts again (local-apps.js)
//   history:<tabId> <key>  a recording (timeline.js)   a history with Persist on, written by the worker
//                                                    (timelines.js) and read back when it starts again
//
// A provider origin is the origin of the WebSocket URL ("ws://127.0.0.1:3737"). The options page
// also accepts http(s) origins and full URLs and stores the matching ws(s) origin.

export const KEYS = Object.freeze({
  TOKENS: 'tokens',
  TOKEN_INDEX: 'tokenIndex',
  APPROVALS: 'approvals',
  DENIED: 'denied',
  MANUAL_PROVIDERS: 'manualProviders',
  STRING_WEBHOOK: 'stringWebhook',
  STRING_WEBHOOK_INDEX: 'stringWebhookIndex',
  BRIDGE_ENABLED: 'bridgeEnabled',
  LOCAL_APPS: 'localApps',
  LOCAL_APPROVALS: 'localApprovals',
  LOCAL_OPEN: 'localOpen',
  BRIDGE_URL: 'bridgeUrl',
  BRIDGE_TOKEN: 'bridgeToken',
  BRIDGE_TOKEN_INDEX: 'bridgeTokenIndex',
  BRIDGE_STATUS: 'bridgeStatus',
  BRIDGE_ALLOW_UNPAIRED: 'bridgeAllowUnpaired',
  BRIDGE_TRUST: 'bridgeTrust',
  OPTIONS_FOCUS: 'optionsFocus',
  HISTORY_MB: 'historyMb',
  HISTORY_STEPS: 'historySteps',
  AGENT_PROFILES: 'agentProfiles',
  AGENT_KEYS: 'agentKeys',
  AGENT_KEY_INDEX: 'agentKeyIndex',
  AGENT_DEFAULT: 'agentDefault',
});

