/**
 * One block by height or hash (2.3.5). How its answers live, in both modes: a final block for the final TTL;
 * one not final briefly (its content, `is_finality`, changes), by the head rule too when named by its hash (the
 * proxy may never have seen that hash), and under precise invalidation by its height's finality watch, for a
 * hash only while the block reader knows that height by that hash.
 */
import { P } from './params.js';
import { BlockDetail } from './records.js';
import { DAY, SEC, SERVER_TIMESTAMP, KEEP_OWN, answer, endpoint, height, obj, policy } from './kit.js';
import type { ReaderFacts } from './types.js';
import { withinHead } from './facts.js';

/** A 64-character `h` names the block by its hash. */
const isHash = (h: string | undefined): boolean => h?.length === 64;

/** The reader knows height `h` (not final yet) by the hash the record shows. */
function knownAs(reader: ReaderFacts | null, h: number | null, data: unknown): boolean {
  const hash = obj(data)?.['block_hash'];
  return h !== null && typeof hash === 'string' && hash !== '' && reader?.hashOf(h) === hash;
}

export const blockDetail = endpoint({
  path: 'block/detail',
  params: [P.h],
  reference: { data: 'Block detail (4.5)', notes: { h: 'height or hash' } },
  data: BlockDetail,
  policy: policy(5 * SEC, DAY, 5 * SEC, 5 * SEC, false),
  decide: ({ params, data, policy: p, chain, reader }) => {
    const d = obj(data);
    const h = height(d?.['height']);
    // The answer shows its block: the upstream had it (a block the proxy believes: it teaches no new head).
    const observedHead = withinHead(h, chain) ? h : null;
    // A "final" block above every head the proxy trusts is not believed final.
    if (d?.['is_finality'] === true && observedHead !== null)
      return { cls: { ...answer(p, p.finalTtlMs, false), observedFinal: observedHead, observedHead } };
    // Not final: the content itself (is_finality false) changes, so no promotion.
    const byHash = isHash(params.get('h'));
    const cls = {
      ...answer(p, p.volatileTtlMs, p.invalidateOnHead || (byHash && p.volatileTtlMs < p.finalTtlMs)),
      observedHead,
    };
    // Named by its hash: watched only while the reader knows its height by that hash (a final one needs no watch;
    // while the final height is unknown, the precise rule's watch keeps its own timing).
    const f = chain.finalHeight();
    const unwatched = byHash && f !== null && (h === null || h > f) && !knownAs(reader, h, data);
    return unwatched ? { cls, keep: KEEP_OWN } : { cls };
  },
  about: 'h',
  finalCapable: true,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [{ on: 'finality', param: 'h', field: 'height' }],
});
