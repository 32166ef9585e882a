/** What the proxy knows about the chain, learned from upstream probes and data. */
export interface ChainView {
  /** Highest head the proxy trusts (monotonic; never goes backwards). null until known. */
  bestHead(): number | null;
  /** Highest block height seen final (`is_finality: true`) in upstream data. null until known. */
  finalHeight(): number | null;
}

export interface ChainEvents {
  /** The best head advanced: head-dependent entries stored before it are now stale. */
  head: (height: number) => void;
  /** The final height advanced. */
  final: (height: number) => void;
}
