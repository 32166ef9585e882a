/** Today's transaction count (2.3.16). */
import { TxCountToday } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const txCountToday = endpoint({
  path: 'tx/count/today',
  params: [],
  reference: { data: '`{count}`: transactions of the last 24 hours' },
  data: TxCountToday,
  policy: flat(10 * SEC, true),
  dependsOn: [{ on: 'head' }, { on: 'day' }],
});
