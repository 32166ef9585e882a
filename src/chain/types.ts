/** What the proxy knows about the chain, learned from upstream probes and data. */
export interface ChainView {
  /** Highest head the proxy trusts; moves backwards only when every upstream has reported lower heads for a while (rebase). null until known. */
  bestHead(): number | null;
  /** Highest block height seen final (`is_finality: true`) in upstream data, never above bestHead(). null until known. */
  finalHeight(): number | null;
}
