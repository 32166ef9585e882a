/** Chain totals: blocks, transactions, contracts, addresses. */
import { ChainSummary } from './records.js';
import { SEC, endpoint, flat, height, obj, ordinary } from './kit.js';

export const chainSummary = endpoint({
  path: 'chain/summary',
  params: [],
  reference: { data: '`{block_count, tx_count, contract_count, normal_address_count}`' },
  data: ChainSummary,
  policy: flat(10 * SEC, true),
  // Heights start at 1: the block count is the head.
  decide: ({ data, policy }) => ({ cls: { ...ordinary(policy), observedHead: height(obj(data)?.['block_count']) } }),
  dependsOn: [{ on: 'head' }],
});
