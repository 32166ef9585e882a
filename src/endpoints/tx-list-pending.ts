/** Transactions in the pending pool (2.3.1). */
import { P } from './params.js';
import { Transaction, pagedOf } from './records.js';
import { SEC, SERVER_TIMESTAMP, endpoint, flat } from './kit.js';

export const txListPending = endpoint({
  path: 'tx/list/pending',
  params: [P.page, P.pageSize],
  reference: { data: 'paged pending Transactions (status 2)' },
  data: pagedOf(Transaction, { serverTimestamp: true }, 'PendingPage'),
  policy: flat(1 * SEC, true),
  hot: true,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [{ on: 'pending' }],
});
