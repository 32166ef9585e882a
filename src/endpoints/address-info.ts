/** One address: balance, nonce, type (2.3.13). */
import { P } from './params.js';
import { AddressInfo } from './records.js';
import { SEC, endpoint, flat } from './kit.js';

export const addressInfo = endpoint({
  path: 'address/info',
  params: [P.address],
  reference: { data: 'Address information (4.13)' },
  data: AddressInfo,
  policy: flat(5 * SEC, true),
  dependsOn: [{ on: 'address', param: 'address' }],
});
