import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES as ENDPOINT_PATHS } from '../../src/endpoints/index.js';
import { schemaForEndpoint, validateRecord } from '../../src/schema/index.js';
import { normalAddress } from '../../src/sim/index.js';
import { get, sim } from './util.js';

const params: Record<string, string> = {
  'tx/nrc20': 'address=' + normalAddress(1, 20),
  'tx/detail': '',
  'tx/listByAddress': 'address=' + normalAddress(1, 0),
  'block/detail': 'h=1',
  'token/detail': 'token=NAX',
  'token/tx/list': 'token=NAX',
  'token/holders': 'token=WITI',
  'nax/profits': 'address=' + normalAddress(1, 2),
  'address/info': 'address=' + normalAddress(1, 2),
};

describe('tiny chains (start height 1 and 100) answer every endpoint', () => {
  for (const startHeight of [1, 100]) {
    it(`startHeight ${startHeight}`, async () => {
      const s = await sim({ startHeight });
      try {
        for (const p of ENDPOINT_PATHS) {
          if (p === 'tx/detail') continue;
          const g = await get(s.url, `/${p}?${params[p] ?? ''}`);
          expect(g.status, p + ' ' + g.text).toBe(200);
          expect(validateRecord(schemaForEndpoint(p)!, JSON.parse(g.text)), p).toEqual([]);
        }
      } finally {
        await s.close();
      }
    });
  }
});
