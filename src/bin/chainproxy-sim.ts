#!/usr/bin/env node
/** `chainproxy-sim` (the package's bin): the standalone chain simulator. */
process.setSourceMapsEnabled(true);
await import('../sim/cli.js');
