/** Where the simulated chain sits in time: block h is timed genesis + 15 h (Unix seconds). */
import { BLOCK_SECONDS, GENESIS_TIME } from './constants.js';

/** Unix ms the start head is timed at, or 'fixture' for the recorded alignment (height 4842132 ⇒ 1595158875). */
export type StartTime = number | 'fixture';

/** Genesis (Unix s) that times block `startHeight` at `start`. */
export function genesisFor(start: StartTime, startHeight: number): number {
  if (start === 'fixture') return GENESIS_TIME;
  return Math.floor(start / 1000) - startHeight * BLOCK_SECONDS;
}

/** Parses a --start-time value: Unix ms, an ISO date, or 'fixture'; null when invalid. */
export function parseStartTime(v: string): StartTime | null {
  if (v === 'fixture') return v;
  if (/^\d{1,15}$/.test(v)) return Number(v);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}
