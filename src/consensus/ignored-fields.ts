/**
 * Which answers are voted on, and which of their fields are left out of the
 * comparison: the endpoints whose answers can be kept with the final (long)
 * TTL, each with the fields that legitimately differ between two honest
 * upstreams (time stamps, links built from the upstream's own base URL).
 * Paths start at the envelope (`data.next`); `*` is every item of an array.
 * Everything else, `msg` aside, must match byte for byte once canonical.
 */
import type { EndpointName } from '../catalogue/types.js';

/** Ignored for every voted endpoint. */
const COMMON: readonly string[] = ['msg', 'data.server_timestamp'];

// prettier-ignore
const TABLE: Partial<Record<EndpointName, readonly string[]>> = {
  'block/detail': [],
  'tx/list':      ['data.next', 'data.previous'],
  'tx/detail':    [],
};

/** Ignored paths split into segments, per voted endpoint. */
export const VOTED: ReadonlyMap<EndpointName, readonly (readonly string[])[]> = new Map(
  (Object.entries(TABLE) as [EndpointName, readonly string[]][]).map(([name, paths]) => [name, [...COMMON, ...paths].map((p) => p.split('.'))]),
);
