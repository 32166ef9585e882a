/** What the proxy knows about the chain, learned from upstream probes and data. */
export interface ChainView {
  /**
   * Highest head the proxy trusts; moves backwards only when every upstream
   * has reported lower heads for a while (rebase). null until known.
   */
  bestHead(): number | null;
  /**
   * Highest block height seen final (`is_finality: true`) in upstream data, never above bestHead(). null until known.
   */
  finalHeight(): number | null;
}

/** What one upstream answer showed about the chain. */
export interface ChainFacts {
  /** The head it reported (a head answer: block/max), or the highest height its data showed (see `shown`), or null. */
  head: number | null;
  /** True when `head` is only the highest height shown in data (a lower bound of the upstream's head, not its head). */
  shown: boolean;
  /** The highest height it showed final (`is_finality: true`), or null. */
  final: number | null;
  /** The upstream that answered. */
  source: string;
}

/** The one place chain facts learned from answers are applied (the tracker). */
export interface ChainFeedback {
  apply(facts: ChainFacts): void;
}
