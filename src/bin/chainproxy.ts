#!/usr/bin/env node
/** `chainproxy` (the package's bin): stack traces point at the TypeScript sources, then the proxy starts. */
process.setSourceMapsEnabled(true);
await import('../main.js');
