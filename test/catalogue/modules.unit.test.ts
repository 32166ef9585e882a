/**
 * The endpoint modules and their registry: one module per endpoint, every
 * declaration consistent with the module's own parameters, and the facts
 * other parts read from them (policies, hot keys, final-capable, head
 * answers, stamps) as they were when they lived in separate tables.
 */
import { describe, expect, it } from 'vitest';
import { P } from '../../src/endpoints/params.js';
import { DEFAULT_POLICIES } from '../../src/catalogue/policies.js';
import { ENDPOINT_NAMES, ENDPOINTS, moduleOf } from '../../src/endpoints/index.js';
import { endpoint, flat } from '../../src/endpoints/kit.js';
import { BlockMax } from '../../src/endpoints/records.js';
import { FIXTURES } from '../helpers/proxy-kit.js';

const S = 1000;
const M = 60 * S;
const DAY = 24 * 60 * M;
// The policy table as it was before the modules (ttl, final, volatile, swr, head).
// prettier-ignore
const TABLE: Record<string, [number, number, number, number, boolean]> = {
  'block/max':             [  1 * S,    1 * S,    1 * S,    1 * S, false],
  'tx/list/pending':       [  1 * S,    1 * S,    1 * S,    1 * S, true ],
  'tx/list':               [  3 * S,    DAY,      5 * S,    3 * S, true ],
  'block/list':            [  3 * S,    3 * S,    3 * S,    3 * S, true ],
  'tx/listByAddress':      [  3 * S,    3 * S,    3 * S,    3 * S, true ],
  'tx/nrc20':              [  3 * S,    3 * S,    3 * S,    3 * S, true ],
  'token/tx/list':         [  3 * S,    3 * S,    3 * S,    3 * S, true ],
  'block/detail':          [  5 * S,    DAY,      5 * S,    5 * S, false],
  'tx/detail':             [  5 * S,    DAY,      1 * S,    1 * S, false],
  'token/list':            [ 10 * M,   10 * M,   10 * M,   10 * M, false],
  'token/detail':          [ 10 * M,   10 * M,   10 * M,   10 * M, false],
  'tx/count/history':      [  5 * M,    5 * M,    5 * M,    5 * M, false],
  'address/count/history': [  5 * M,    5 * M,    5 * M,    5 * M, false],
  'nax/history':           [  5 * M,    5 * M,    5 * M,    5 * M, false],
  'tx/count/today':        [ 10 * S,   10 * S,   10 * S,   10 * S, true ],
  'chain/summary':         [ 10 * S,   10 * S,   10 * S,   10 * S, true ],
  'address/info':          [  5 * S,    5 * S,    5 * S,    5 * S, true ],
  'holders':               [ 60 * S,   60 * S,   60 * S,   60 * S, false],
  'token/holders':         [ 60 * S,   60 * S,   60 * S,   60 * S, false],
  'contracts':             [ 60 * S,   60 * S,   60 * S,   60 * S, false],
  'nax/summary':           [ 60 * S,   60 * S,   60 * S,   60 * S, false],
  'nax/profits':           [ 60 * S,   60 * S,   60 * S,   60 * S, false],
};

const names = (pick: (m: (typeof ENDPOINTS)[number]) => boolean): string[] =>
  ENDPOINTS.filter(pick)
    .map((m) => m.path)
    .sort();

describe('endpoint registry', () => {
  it('one module per recorded endpoint, each path once', () => {
    expect([...ENDPOINT_NAMES].sort()).toEqual(FIXTURES.map((f) => f.path).sort());
    expect(new Set(ENDPOINT_NAMES).size).toBe(ENDPOINTS.length);
    for (const m of ENDPOINTS) expect(moduleOf(m.path)).toBe(m);
    expect(moduleOf('no/such')).toBeUndefined();
  });

  it('default policies as the table had them', () => {
    for (const [name, [ttlMs, finalTtlMs, volatileTtlMs, swrMs, invalidateOnHead]] of Object.entries(TABLE)) {
      expect(DEFAULT_POLICIES[name as keyof typeof DEFAULT_POLICIES], name).toEqual({
        ttlMs,
        finalTtlMs,
        volatileTtlMs,
        swrMs,
        sieMs: DAY,
        negativeTtlMs: S,
        invalidateOnHead,
      });
    }
  });

  it('hot, final-capable, head answer, slow data: the sets the separate tables held', () => {
    expect(names((m) => m.hot)).toEqual(['block/list', 'block/max', 'tx/list', 'tx/list/pending']);
    expect(names((m) => m.finalCapable)).toEqual(['block/detail', 'tx/detail', 'tx/list']);
    expect(names((m) => m.reportsHead)).toEqual(['block/max']);
    expect(names((m) => m.freshness === 'any')).toEqual([
      'address/count/history',
      'nax/history',
      'token/detail',
      'token/list',
      'tx/count/history',
    ]);
    expect(names((m) => m.about !== null)).toEqual(['block/detail', 'tx/list']);
    expect(names((m) => m.stamps.items !== undefined)).toEqual(['tx/nrc20']);
  });

  it(
    'every parameter a module names (about, dependencies) ' +
      'is one of its own; every module declares what it depends on',
    () => {
      for (const m of ENDPOINTS) {
        const own = new Set(m.params.map((p) => p.name));
        if (m.about !== null) expect(own.has(m.about), `${m.path} about ${m.about}`).toBe(true);
        expect(m.dependsOn.length, m.path).toBeGreaterThan(0);
        for (const d of m.dependsOn) {
          const param = 'param' in d ? d.param : d.on === 'head' ? d.unless : undefined;
          if (param !== undefined) expect(own.has(param), `${m.path} depends on ${d.on} of ${param}`).toBe(true);
        }
      }
      expect(moduleOf('address/info')!.dependsOn).toEqual([{ on: 'address', param: 'address' }]);
      expect(moduleOf('block/detail')!.dependsOn).toEqual([{ on: 'finality', param: 'h', field: 'height' }]);
    },
  );

  it('the compiler refuses a dependency or an `about` naming a parameter the endpoint lacks', () => {
    const ok = endpoint({
      path: 'x/ok',
      params: [P.address],
      reference: { data: 'x' },
      data: BlockMax,
      policy: flat(S, false),
      dependsOn: [{ on: 'address', param: 'address' }],
    });
    expect(ok.check).toBeNull();
    expect(ok.decide).toBeNull();
    endpoint({
      path: 'x/bad',
      params: [P.address],
      reference: { data: 'x' },
      data: BlockMax,
      policy: flat(S, false),
      // @ts-expect-error `hash` is not a parameter of this endpoint
      dependsOn: [{ on: 'address', param: 'hash' }],
    });
    endpoint({
      path: 'x/bad',
      params: [P.address],
      reference: { data: 'x' },
      data: BlockMax,
      policy: flat(S, false),
      // @ts-expect-error `h` is not a parameter of this endpoint
      about: 'h',
      dependsOn: [],
    });
    endpoint({
      path: 'x/bad',
      params: [P.address],
      // @ts-expect-error `token` is not a parameter of this endpoint
      reference: { data: 'x', notes: { token: 'name' } },
      data: BlockMax,
      policy: flat(S, false),
      dependsOn: [],
    });
  });
});
