/** Transfers of a token, by name or contract (2.3.2). */
import { P } from './params.js';
import { TokenTx, pagedOf } from './records.js';
import { SEC, SERVER_TIMESTAMP, endpoint, flat, tokenOrContract } from './kit.js';

export const tokenTxList = endpoint({
  path: 'token/tx/list',
  params: [P.optToken, P.optAddress('contract'), P.page, P.pageSize],
  reference: { data: 'paged token Transactions (4.2 with `token`), plus `token`', oneOf: ['token', 'contract'] },
  data: pagedOf(TokenTx, { serverTimestamp: true, token: true }, 'TokenTxPage'),
  policy: flat(3 * SEC, true),
  check: tokenOrContract,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [
    { on: 'token', param: 'token' },
    { on: 'contract', param: 'contract' },
  ],
  everyChangeNamed: true,
});
