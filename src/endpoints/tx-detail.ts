/**
 * One transaction by hash (2.3.2). How its answers live, in both modes:
 * pending (`minedIn` null): short and stale once the head moves, or under precise invalidation kept by its own
 * tag (its leaving the pool) while the block reader would see it leave; mined: its block's finality.
 */
import { P } from './params.js';
import { TxDetail } from './records.js';
import { DAY, SEC, KEEP_OWN, answer, endpoint, keepBy, policy } from './kit.js';
import { isFinalHeight, minedIn, withinHead } from './facts.js';

/** Pending: its own tag, which the block it leaves the pool with names (the reader tells it). */
const BY_OWN_TAG = keepBy([{ on: 'pending', param: 'hash' }], 'told');
/** Mined: only its block's finality (or a new hash for that block) changes it (the reader tells it). */
const BY_ITS_BLOCK = keepBy([{ on: 'finality', field: 'block_height' }], 'told');

export const txDetail = endpoint({
  path: 'tx/detail',
  params: [P.hash],
  reference: { data: 'Transaction detail (4.2)' },
  data: TxDetail,
  policy: policy(5 * SEC, DAY, 1 * SEC, 1 * SEC, false),
  decide: ({ params, data, policy: p, chain, reader }) => {
    const bh = minedIn(data);
    if (bh === null) {
      // Pending: short, stale once the head moves; its own tag only while the reader would see it leave the pool.
      const hash = params.get('hash');
      const seen = hash !== undefined && reader?.inPool(hash) === true;
      return {
        cls: answer(p, p.volatileTtlMs, true),
        keep: seen ? BY_OWN_TAG : KEEP_OWN,
      };
    }
    // The answer shows its block: the upstream had it (a block the proxy believes: it teaches no new head).
    const observedHead = withinHead(bh, chain) ? bh : null;
    const kept = isFinalHeight(bh, chain.finalHeight())
      ? answer(p, p.finalTtlMs, false)
      : answer(p, p.ttlMs, p.invalidateOnHead, bh);
    return { cls: { ...kept, observedHead }, keep: BY_ITS_BLOCK };
  },
  finalCapable: true,
  dependsOn: [
    { on: 'pending', param: 'hash' },
    { on: 'finality', field: 'block_height' },
  ],
});
