/** Today's transaction count (2.3.16). */
import { TxCountToday } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const txCountToday = endpoint({
  path: 'tx/count/today',
  params: [],
  data: TxCountToday,
  policy: flat(10 * SEC, true),
  dependsOn: [{ on: 'head' }, { on: 'day' }],
});
