// devtools.js: creates the "SLOP" panel. Nothing else runs in the DevTools page; the panel
// (extension/panel/) finds its tab through chrome.devtools.inspectedWindow.tabId.
import { createDevtoolsPanel } from '../shared/browser.js';

createDevtoolsPanel('SLOP', 'extension/icons/icon-32.png', 'extension/panel/panel.html');
