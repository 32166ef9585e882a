/** The chain head: the highest block the service has. */
import { BlockMax } from './records.js';
import { SEC, SERVER_TIMESTAMP, endpoint, flat, height, obj, ordinary } from './kit.js';

export const blockMax = endpoint({
  path: 'block/max',
  params: [],
  reference: { data: '`{height, server_timestamp}`: the highest block' },
  data: BlockMax,
  policy: flat(1 * SEC, false),
  decide: ({ data, policy }) => ({ cls: { ...ordinary(policy), observedHead: height(obj(data)?.['height']) } }),
  hot: true,
  reportsHead: true,
  stamps: SERVER_TIMESTAMP,
  dependsOn: [{ on: 'head' }],
});
