/** One block by height or hash (2.3.5). */
import { P } from './params.js';
import { BlockDetail } from './records.js';
import { DAY, SEC, SERVER_TIMESTAMP, answer, endpoint, height, obj, policy, withinHead } from './kit.js';

export const blockDetail = endpoint({
  path: 'block/detail',
  params: [P.h],
  reference: { data: 'Block detail (4.5)', notes: { h: 'height or hash' } },
  data: BlockDetail,
  policy: policy(5 * SEC, DAY, 5 * SEC, 5 * SEC, false),
  classify: ({ data, policy: p, chain }) => {
    const d = obj(data);
    const h = height(d?.['height']);
    // The answer shows its block: the upstream had it (a block the proxy believes: it teaches no new head).
    const observedHead = withinHead(h, chain) ? h : null;
    // A "final" block above every head the proxy trusts is not believed final.
    if (d?.['is_finality'] === true && observedHead !== null)
      return { ...answer(p, p.finalTtlMs, false), observedFinal: observedHead, observedHead };
    // Not final: the content itself (is_finality false) changes, so no promotion.
    return { ...answer(p, p.volatileTtlMs, p.invalidateOnHead), observedHead };
  },
  about: 'h',
  finalCapable: true,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [{ on: 'finality', param: 'h', field: 'height' }],
});
