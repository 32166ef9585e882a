/** Holders of a token, by name or contract (2.3.8). */
import { P } from './params.js';
import { TokenHolder, pagedOf } from './records.js';
import { SEC, endpoint, flat, tokenOrContract } from './kit.js';

export const tokenHolders = endpoint({
  path: 'token/holders',
  params: [P.optToken, P.optAddress('contract'), P.page, P.pageSize],
  reference: { data: 'paged Token holders (4.8)', oneOf: ['token', 'contract'] },
  data: pagedOf(TokenHolder, {}, 'TokenHolderPage'),
  policy: flat(60 * SEC, false),
  check: tokenOrContract,
  dependsOn: [
    { on: 'token', param: 'token' },
    { on: 'contract', param: 'contract' },
  ],
});
