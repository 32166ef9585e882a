/** One transaction by hash (2.3.2). */
import { P } from './params.js';
import { TxDetail } from './records.js';
import { DAY, SEC, answer, endpoint, height, isFinal, obj, policy, withinHead } from './kit.js';

export const txDetail = endpoint({
  path: 'tx/detail',
  params: [P.hash],
  reference: { data: 'Transaction detail (4.2)' },
  data: TxDetail,
  policy: policy(5 * SEC, DAY, 1 * SEC, 1 * SEC, false),
  classify: ({ data, policy: p, chain }) => {
    const d = obj(data);
    if (d === null) return answer(p, p.volatileTtlMs, true);
    const bh = height(d['block_height']);
    // Pending (status 2) or not in a block yet: short, and stale once the head moves.
    if (d['status'] === 2 || bh === null) return answer(p, p.volatileTtlMs, true);
    // The answer shows its block: the upstream had it (a block the proxy believes: it teaches no new head).
    const observedHead = withinHead(bh, chain) ? bh : null;
    const kept = isFinal(bh, chain) ? answer(p, p.finalTtlMs, false) : answer(p, p.ttlMs, p.invalidateOnHead, bh);
    return { ...kept, observedHead };
  },
  finalCapable: true,
  dependsOn: [
    { on: 'pending', param: 'hash' },
    { on: 'finality', field: 'block_height' },
  ],
});
