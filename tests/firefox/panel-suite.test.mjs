// The panel, popup and options features, in Firefox ESR: the suite both browsers share (tests/ui/panel-suite.mjs).
import { panelSuite } from '../ui/panel-suite.mjs';

panelSuite('firefox');
