/** Chain totals: blocks, transactions, contracts, addresses. */
import { ChainSummary } from '../schema/records.js';
import { SEC, endpoint, flat } from './kit.js';

export const chainSummary = endpoint({
  path: 'chain/summary',
  params: [],
  data: ChainSummary,
  policy: flat(10 * SEC, true),
  dependsOn: [{ on: 'head' }],
});
