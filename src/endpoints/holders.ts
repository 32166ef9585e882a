/** Top native-coin holders (2.3.9). */
import { P } from './params.js';
import { Holder, pagedOf } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const holders = endpoint({
  path: 'holders',
  params: [P.page, P.pageSize],
  reference: { data: 'paged native-coin holders (4.9), richest first' },
  data: pagedOf(Holder, {}, 'HolderPage'),
  policy: flat(60 * SEC, false),
  dependsOn: [{ on: 'head' }],
});
