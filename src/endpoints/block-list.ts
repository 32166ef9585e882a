/** The newest blocks (2.3.4). */
import { P } from './params.js';
import { Block, pagedOf } from './records.js';
import { SEC, endpoint, flat, height, obj, ordinary } from './kit.js';
import { highestIn } from './heights.js';

/** Highest height with is_finality true among blocks. */
function highestFinal(blocks: readonly unknown[]): number | null {
  let best: number | null = null;
  for (const b of blocks) {
    const o = obj(b);
    if (o === null || o['is_finality'] !== true) continue;
    const h = height(o['height']);
    if (h !== null && (best === null || h > best)) best = h;
  }
  return best;
}

export const blockList = endpoint({
  path: 'block/list',
  params: [P.page, P.pageSize],
  reference: { data: 'paged Blocks (4.4), highest first' },
  data: pagedOf(Block, {}, 'BlockPage'),
  policy: flat(3 * SEC, true),
  decide: ({ data, policy }) => {
    const list = obj(data)?.['list'];
    const observedFinal = Array.isArray(list) ? highestFinal(list) : null;
    return { cls: { ...ordinary(policy), observedHead: highestIn(data, 'height'), observedFinal } };
  },
  hot: true,
  dependsOn: [{ on: 'head' }],
});
