/** Daily address counts (2.3.14). */
import { P } from './params.js';
import { arrayOf } from './language.js';
import { AddressCountItem } from './records.js';
import { MIN, endpoint, flat } from './kit.js';

export const addressCountHistory = endpoint({
  path: 'address/count/history',
  params: [P.days(30)],
  reference: { data: 'array of address statistics (4.14), not paged' },
  data: arrayOf(AddressCountItem),
  policy: flat(5 * MIN, false),
  freshness: 'any',
  dependsOn: [{ on: 'day' }],
});
