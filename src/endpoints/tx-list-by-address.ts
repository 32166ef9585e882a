/** Transactions of an address (2.3.1). */
import { P } from './params.js';
import { Transaction, pagedOf } from './records.js';
import { SEC, SERVER_TIMESTAMP, endpoint, flat } from './kit.js';

export const txListByAddress = endpoint({
  path: 'tx/listByAddress',
  params: [P.address, P.isNrc20, P.page, P.pageSize],
  reference: { data: 'paged Transactions of the address' },
  data: pagedOf(Transaction, { serverTimestamp: true }, 'AddressTransactionPage'),
  policy: flat(3 * SEC, true),
  stamps: SERVER_TIMESTAMP,
  dependsOn: [{ on: 'address', param: 'address' }],
  everyChangeNamed: true,
});
