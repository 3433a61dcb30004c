// panes.js: what a tab of the side pane is to the panel (side-tabs.js lists the tabs,
// parts/side-pane.js routes to them). A pane is told when its tab is shown and hidden, hears every
// store change, and is disposed of with the panel; it never asks the panel whether it is shown.

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./store.js').StoreChange} StoreChange */
/** @typedef {import('./bridge.js').Bridge} Bridge */
/** @typedef {import('./selection.js').Selection} Selection */
/** @typedef {import('./views/tree-view.js').TreeView} TreeView */
/** @typedef {import('./parts/side-pane.js').SidePane} SidePane */

/**
 * @typedef {object} Pane   one side tab's content
 * @property {() => void} shown    its tab is shown (clicked, a key, or the panel asked for it); called
 *   again while shown when it is asked for again (a refresh)
 * @property {() => void} hidden   another tab replaced it
 * @property {(change: StoreChange|null) => void} update   every pane hears every store change, shown
 *   or not (the Playground's run and the History's strip go on behind another tab); a hidden pane
 *   does only what cannot wait. null: the shown state changed as a whole (another provider, a step
 *   of the History, another subscription): render it all.
 * @property {() => void} dispose  the panel goes: timers and listeners stop
 */

/**
 * @typedef {object} PanelActions   what a pane may ask of the panel around it
 * @property {(key: string) => void} showProvider   shows another provider (or an import, a recording)
 * @property {() => void} stepShown   a step of the History (or live again) is shown: every part renders it
 * @property {(text: string) => boolean} revealFrame   the log's line with this text, shown
 * @property {() => void} renderNotices   the empty states again (a tab shown over a provider's waiting card)
 */

/**
 * @typedef {object} PaneContext   what a pane's factory gets, besides the element it fills
 * @property {Store} store
 * @property {Bridge} bridge
 * @property {Selection} selection
 * @property {TreeView} treeView
 * @property {{show: (text: string) => void}} toast
 * @property {(text: string, what: string) => void} copy
 * @property {<E extends HTMLElement = HTMLElement>(id: string) => E} el   an element of panel.html outside the side pane (the bar's badge, the History strip)
 * @property {SidePane} side   the tabs: show one, mark one for attention, another's pane
 * @property {PanelActions} panel
 */

/** fn, called at the next animation frame however often it is asked for before then. @param {() => void} fn */
export function oncePerFrame(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}
