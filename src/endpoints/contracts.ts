/** Deployed contracts (2.3.6). */
import { P } from './params.js';
import { Contract, pagedOf } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const contracts = endpoint({
  path: 'contracts',
  params: [P.page, P.pageSize],
  reference: { data: 'paged Contracts (4.6)' },
  data: pagedOf(Contract, {}, 'ContractPage'),
  policy: flat(60 * SEC, false),
  dependsOn: [{ on: 'deployment' }],
});
