// shortcuts.js: every keyboard shortcut of the panel, in one list. The "?" overlay
// (parts/shortcuts-overlay.js) shows it and the guide's table (docs/guide/panel.md) is checked against it
// (tests/node/shortcuts.test.js), so a key added in code but not here, or here but not in the
// guide (docs/guide/panel.md), fails a test. The handlers live beside what they drive; this file only says what exists.
//
// Safety rule for every entry: no key, nor any sequence of them, on a tree row invokes an action.
// Enter opens a node's detail without focusing any of its buttons; an invoke needs the user to
// Tab into the detail and choose one (Enter / Ctrl+Enter invoke only from a field of its form, and
// only once while that invoke is pending). Keys that start a download or open a file chooser need a
// modifier (as in DevTools), so a stray letter never does either.

/** @typedef {{keys: string[], what: string}} Shortcut */

/** Groups in the order the overlay and the guide show them. @type {{title: string, where: string, items: Shortcut[]}[]} */
export const SHORTCUT_GROUPS = [
  {
    title: 'Anywhere in the panel',
    where: 'when no text field has the focus',
    items: [
      { keys: ['?'], what: 'Show or hide the list of keys' },
      { keys: ['/', 'Ctrl+F'], what: 'Search the tree' },
      { keys: ['H'], what: 'Show or hide the history' },
      { keys: ['L'], what: 'Show or hide the log' },
      { keys: ['S'], what: 'Show or hide the subscription strip' },
      { keys: ['Ctrl+Shift+E'], what: 'Export the shown state as a JSON snapshot (a download)' },
      { keys: ['Ctrl+Shift+O'], what: 'Import a snapshot or a recording (a file chooser)' },
      { keys: ['Esc'], what: 'Close the list of keys; in the history, go back to live' },
    ],
  },
  {
    title: 'Tree',
    where: 'when the tree has the focus',
    items: [
      { keys: ['↑', '↓'], what: 'Previous / next row' },
      { keys: ['←', '→'], what: 'Collapse, or go to the parent / expand, or go to the first child' },
      { keys: ['Home', 'End'], what: 'First / last row' },
      { keys: ['PageUp', 'PageDown'], what: 'A page up / down' },
      { keys: ['Enter'], what: 'Open the node\'s detail (it invokes nothing: Tab to reach its actions); on "Load more", load' },
      { keys: ['*'], what: 'Expand the node and everything below it' },
      { keys: ['-'], what: 'Collapse the node and everything below it' },
      { keys: ['Shift+←'], what: 'Collapse all: the tree down to its first level' },
      { keys: ['ContextMenu', 'Shift+F10'], what: 'The row\'s menu: copy path, JSON or value; expand or collapse below; select in the log (it invokes nothing)' },
      { keys: ['Ctrl+C'], what: 'Copy the node and its subtree as JSON' },
    ],
  },
  {
    title: 'Row menu',
    where: 'when a row\'s menu is open',
    items: [
      { keys: ['↑', '↓', 'Home', 'End'], what: 'Move between the items' },
      { keys: ['Enter', 'Space'], what: 'Do the item' },
      { keys: ['Esc', 'Tab'], what: 'Close the menu, back to the tree' },
    ],
  },
  {
    title: 'Search',
    where: 'in the search field',
    items: [
      { keys: ['Enter'], what: 'Search what is in the field; again: the next match' },
      { keys: ['Shift+Enter'], what: 'Previous match' },
      { keys: ['Esc'], what: 'Clear the search and go back to the tree' },
    ],
  },
  {
    title: 'History',
    where: 'when the history strip or the History tab is shown',
    items: [
      { keys: ['←', '→'], what: 'Previous / next step (when the focus is not in a text field, the slider or the tree)' },
      { keys: ['↑', '↓'], what: 'Previous / next step, in the step list' },
      { keys: ['PageUp', 'PageDown'], what: 'A screenful of steps back / on, in the step list' },
      { keys: ['Home', 'End'], what: 'The oldest step kept / the newest, in the step list' },
      { keys: ['P'], what: 'Pin (or unpin) the selected step, in the step list: pin two to diff them' },
      { keys: ['Esc'], what: 'Back to live (when the focus is not in a text field)' },
    ],
  },
  {
    title: 'Node detail',
    where: 'in an affordance\'s form',
    items: [
      { keys: ['Ctrl+Enter', 'Cmd+Enter'], what: 'In any field of the form, a list or a text box too: invoke that affordance (a dangerous one asks first, Cancel focused)' },
      { keys: ['Enter'], what: 'In a one-line field: the same (in a list it opens the list; in a text box it starts a line)' },
      { keys: ['Esc'], what: 'Close the confirmation, or go back to the tree' },
    ],
  },
  {
    title: 'Playground',
    where: 'in the Playground tab',
    items: [
      { keys: ['Ctrl+Enter', 'Cmd+Enter'], what: 'In the task box: run the task (Enter alone starts a new line)' },
      { keys: ['Enter', 'Esc'], what: 'On a dangerous call\'s question: Cancel, the default (Run it takes a click, or Tab to it then Enter)' },
    ],
  },
];

/** Every shortcut, flat, with its group's title. */
export function allShortcuts() {
  return SHORTCUT_GROUPS.flatMap((g) => g.items.map((s) => ({ ...s, group: g.title })));
}
