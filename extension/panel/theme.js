// theme.js: light or dark, as <html data-theme>. Inside DevTools the panel follows the DevTools
// theme (devtools.panels.themeName); as a plain page it follows prefers-color-scheme; ?theme=dark
// or ?theme=light forces one (screenshots, tests).

import { devtoolsTheme, onDevtoolsThemeChanged } from '../shared/browser.js';

/**
 * Sets the theme and keeps it; says where it came from.
 * @param {string} [search] the page's query string
 * @returns {'query'|'devtools'|'system'}
 */
export function initTheme(search = location.search) {
  const apply = (/** @type {string} */ t) => { document.documentElement.dataset.theme = t; };
  const forced = new URLSearchParams(search).get('theme');
  if (forced === 'dark' || forced === 'light') {
    apply(forced);
    return 'query';
  }
  const dt = devtoolsTheme();
  if (dt) {
    apply(dt);
    onDevtoolsThemeChanged(apply);
    return 'devtools';
  }
  const mq = matchMedia('(prefers-color-scheme: dark)');
  apply(mq.matches ? 'dark' : 'light');
  mq.addEventListener('change', (e) => apply(e.matches ? 'dark' : 'light'));
  return 'system';
}
