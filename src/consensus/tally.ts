/**
 * Counting a vote. One ballot per upstream (a second one from the same
 * upstream, a retry's or a hedge's, is ignored), grouped by content hash.
 *
 * - agreed:   one version, with at least `quorum` upstreams behind it;
 * - majority: several versions, one held by more than half of the upstreams
 *             that answered and by at least `quorum` of them;
 * - disputed: several versions, none with such a majority;
 * - short:    one version so far, held by fewer than `quorum` upstreams.
 */
export interface Ballot {
  upstream: string;
  hash: string;
}

export interface Version {
  hash: string;
  upstreams: string[];
}

export type Tally =
  | { kind: 'agreed'; winner: Version }
  | { kind: 'majority'; winner: Version; versions: Version[] }
  | { kind: 'disputed'; versions: Version[] }
  | { kind: 'short'; versions: Version[] };

/** Versions by support, largest first (ties: first seen first). */
function versionsOf(ballots: readonly Ballot[]): Version[] {
  const seen = new Set<string>();
  const byHash = new Map<string, Version>();
  for (const b of ballots) {
    if (seen.has(b.upstream)) continue;
    seen.add(b.upstream);
    let v = byHash.get(b.hash);
    if (v === undefined) byHash.set(b.hash, (v = { hash: b.hash, upstreams: [] }));
    v.upstreams.push(b.upstream);
  }
  return [...byHash.values()].sort((a, b) => b.upstreams.length - a.upstreams.length);
}

export function tally(ballots: readonly Ballot[], quorum: number): Tally {
  const versions = versionsOf(ballots);
  const top = versions[0];
  if (top === undefined) return { kind: 'short', versions };
  if (versions.length === 1)
    return top.upstreams.length >= quorum ? { kind: 'agreed', winner: top } : { kind: 'short', versions };
  const voters = versions.reduce((n, v) => n + v.upstreams.length, 0);
  if (top.upstreams.length * 2 > voters && top.upstreams.length >= quorum)
    return { kind: 'majority', winner: top, versions };
  return { kind: 'disputed', versions };
}
