// The desktop bridge against each real desktop tool, in Firefox ESR: the suite both browsers share
// (tests/ui/bridge-suite.mjs).
import { bridgeSuite, BRIDGE_KINDS } from '../ui/bridge-suite.mjs';

for (const kind of BRIDGE_KINDS) bridgeSuite('firefox', kind);
