/** Top native-coin holders (2.3.9). */
import { P } from './params.js';
import { Holder, pagedOf } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const holders = endpoint({
  path: 'holders',
  params: [P.page, P.pageSize],
  data: pagedOf(Holder, {}, 'HolderPage'),
  policy: flat(60 * SEC, false),
  dependsOn: [{ on: 'head' }],
});
