/** NRC20 tokens. */
import { arrayOf } from './language.js';
import { Token } from './records.js';
import { MIN, endpoint, flat } from './kit.js';

export const tokenList = endpoint({
  path: 'token/list',
  params: [],
  reference: { data: 'array of Tokens (4.7), not paged' },
  data: arrayOf(Token),
  policy: flat(10 * MIN, false),
  freshness: 'any',
  dependsOn: [{ on: 'deployment' }],
});
