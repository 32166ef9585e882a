/** NRC20 transfers of an address (2.3.3). */
import { P } from './params.js';
import { Nrc20Result } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const txNrc20 = endpoint({
  path: 'tx/nrc20',
  params: [P.address, P.page, P.pageSize],
  reference: { data: 'NRC20 transfers of the address: `txnList` … (2.2, 4.3)' },
  data: Nrc20Result,
  policy: flat(3 * SEC, true),
  stamps: { data: [], items: { list: 'txnList', now: 'currentTimestamp', diff: 'timeDiff', base: 'timestamp' } },
  dependsOn: [{ on: 'address', param: 'address' }],
  everyChangeNamed: true,
});
