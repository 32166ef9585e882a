/** NAX distribution summary (2.3.11). */
import { NaxSummary } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const naxSummary = endpoint({
  path: 'nax/summary',
  params: [],
  reference: { data: 'NAX summary (4.11)' },
  data: NaxSummary,
  policy: flat(60 * SEC, false),
  dependsOn: [{ on: 'stage-end', field: 'end_height' }],
});
