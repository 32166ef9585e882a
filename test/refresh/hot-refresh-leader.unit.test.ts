/**
 * Refresh-ahead of invalidated tag-kept entries runs only where the fleet's
 * background work runs (the leader, or a replica acting alone): a follower
 * finds the leader's refreshed entries in the Redis tier.
 */
import { describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { buildCatalogue } from '../../src/catalogue/index.js';
import type { CacheEntry } from '../../src/cache/types.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { HotRefresh } from '../../src/invalidation/hot-refresh.js';
import { tagOfAddress } from '../../src/invalidation/tags.js';
import type { TouchedSet } from '../../src/chain/touched.js';

const ADDRESS = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';
const entry = {
  key: `tx/listByAddress?address=${ADDRESS}`,
  deps: { tags: [tagOfAddress(ADDRESS)], watchFinal: null },
} as unknown as CacheEntry;
const block: TouchedSet = {
  height: 10,
  blockHash: 'h10',
  addresses: [ADDRESS],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete: true,
};

function hotRefresh(acting: () => boolean) {
  const config = defaultConfig();
  const revalidate = vi.fn(() => Promise.resolve());
  const hot = new HotRefresh();
  hot.attach({
    acting,
    revalidate,
    catalogue: buildCatalogue(config.policies),
    limits: config.limits,
    maxKeys: 8,
    refreshed: () => {},
    logger: pino({ level: 'silent' }),
  });
  hot.invalidated(entry);
  return { hot, revalidate };
}

describe('HotRefresh in a fleet', () => {
  it('refreshes an invalidated hot entry when a block names it, while this replica acts for the fleet', () => {
    const { hot, revalidate } = hotRefresh(() => true);
    hot.block(block);
    expect(revalidate).toHaveBeenCalledTimes(1);
  });

  it('a follower does not', () => {
    const { hot, revalidate } = hotRefresh(() => false);
    hot.block(block);
    expect(revalidate).not.toHaveBeenCalled();
  });
});
