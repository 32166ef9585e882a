/** One NRC20 token by name. */
import { P } from './params.js';
import { Token } from './records.js';
import { MIN, endpoint, flat } from './kit.js';

export const tokenDetail = endpoint({
  path: 'token/detail',
  params: [P.token],
  reference: { data: 'Token (4.7)', notes: { token: 'name' } },
  data: Token,
  policy: flat(10 * MIN, false),
  freshness: 'any',
  dependsOn: [{ on: 'token', param: 'token' }],
});
