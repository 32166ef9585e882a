/** NAX distribution stages (2.3.10). */
import { P } from './params.js';
import { NaxRecord, pagedOf } from './records.js';
import { MIN, endpoint, flat } from './kit.js';

export const naxHistory = endpoint({
  path: 'nax/history',
  params: [P.page, P.pageSize],
  reference: { data: 'paged NAX distribution records (4.10), newest stage first' },
  data: pagedOf(NaxRecord, {}, 'NaxHistoryPage'),
  policy: flat(5 * MIN, false),
  freshness: 'any',
  dependsOn: [{ on: 'nax-stage' }],
});
