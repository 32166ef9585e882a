#!/usr/bin/env node
/**
 * `chainproxy` (the package's bin, and `npm start`): stack traces point at the
 * TypeScript sources; the server runs under the heap cap derived from
 * CACHE_MAX_BYTES (src/startup/relaunch.ts), or here when the operator set one.
 */
process.setSourceMapsEnabled(true);
const { relaunchWithHeapCap } = await import('../startup/relaunch.js');
if (!relaunchWithHeapCap()) await import('../main.js');
