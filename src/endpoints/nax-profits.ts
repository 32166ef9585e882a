/** NAX profits of an address (2.3.12). */
import { P } from './params.js';
import { NaxProfit, pagedOf } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const naxProfits = endpoint({
  path: 'nax/profits',
  params: [P.address, P.page, P.pageSize],
  reference: { data: 'paged NAX profits of the address (4.12)' },
  data: pagedOf(NaxProfit, {}, 'NaxProfitPage'),
  policy: flat(60 * SEC, false),
  dependsOn: [{ on: 'address', param: 'address' }, { on: 'nax-stage' }],
});
