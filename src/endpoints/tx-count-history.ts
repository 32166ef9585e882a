/** Daily transaction counts (2.3.15). */
import { P } from './params.js';
import { arrayOf } from './language.js';
import { TxCountItem } from './records.js';
import { MIN, endpoint, flat } from './kit.js';

export const txCountHistory = endpoint({
  path: 'tx/count/history',
  params: [P.days(15)],
  reference: { data: 'array of daily counts (4.15), most recent day first, not paged' },
  data: arrayOf(TxCountItem),
  policy: flat(5 * MIN, false),
  freshness: 'any',
  dependsOn: [{ on: 'day' }],
});
