/** The newest transactions, or those of one block (2.3.1). */
import { P } from './params.js';
import { Transaction, pagedOf } from './records.js';
import { DAY, SEC, SERVER_TIMESTAMP, answer, endpoint, ordinary, policy } from './kit.js';
import type { Classification, SuccessInput } from './types.js';
import { highestIn } from './heights.js';
import { isFinalHeight } from './facts.js';

/** The newest page: the head rule; one block's: a day once final, else short and promoted when it is. */
function timing({ params, policy: p, chain, data }: SuccessInput): Classification {
  const seen = { observedHead: highestIn(data, 'block_height') };
  const bh = params.get('block_height');
  if (bh === undefined) return { ...ordinary(p), ...seen };
  const h = Number(bh);
  if (isFinalHeight(h, chain.finalHeight())) return { ...answer(p, p.finalTtlMs, false), ...seen };
  // Promotion only for a block known to exist: a list fetched for a block above
  // the head (empty or partial) must never be kept for a day.
  const head = chain.bestHead();
  return { ...answer(p, p.volatileTtlMs, false, head !== null && h <= head ? h : null), ...seen };
}

export const txList = endpoint({
  path: 'tx/list',
  params: [P.blockHeight, P.page, P.pageSize],
  reference: { data: 'paged Transactions (4.1), newest first', notes: { block_height: 'one block only' } },
  data: pagedOf(Transaction, { serverTimestamp: true }, 'TransactionPage'),
  policy: policy(3 * SEC, DAY, 5 * SEC, 3 * SEC, true),
  decide: (input) => ({ cls: timing(input) }),
  about: 'block_height',
  hot: true,
  finalCapable: true,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [
    { on: 'head', unless: 'block_height' },
    { on: 'finality', param: 'block_height' },
  ],
});
