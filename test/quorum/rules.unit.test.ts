/**
 * The pure rules of a vote: one ballot per upstream, the outcomes, the content hash, the dispute log bound, strikes.
 */
import { describe, expect, it } from 'vitest';
import { contentHash, canonicalJson, without } from '../../src/consensus/content-hash.js';
import { DisputeLog } from '../../src/consensus/dispute-log.js';
import { VOTED, ignoredFields } from '../../src/consensus/compared.js';
import { Misbehaviour } from '../../src/consensus/misbehaviour.js';
import { tally } from '../../src/consensus/tally.js';
import { SitOuts } from '../../src/upstream/sit-out.js';
import { loadConfig } from '../../src/config/load.js';
import { blockDetail } from '../../src/endpoints/block-detail.js';
import { txDetail } from '../../src/endpoints/tx-detail.js';
import { txList } from '../../src/endpoints/tx-list.js';
import { txNrc20 } from '../../src/endpoints/tx-nrc20.js';
import { fakeClock } from '../helpers/clock.js';

describe('tally', () => {
  it('a second ballot from one upstream (a retry, a hedge) is not counted', () => {
    expect(
      tally(
        [
          { upstream: 'u0', hash: 'x' },
          { upstream: 'u0', hash: 'x' },
        ],
        2,
      ).kind,
    ).toBe('short');
    expect(
      tally(
        [
          { upstream: 'u0', hash: 'x' },
          { upstream: 'u1', hash: 'x' },
        ],
        2,
      ).kind,
    ).toBe('agreed');
  });
  it('majority needs more than half of the voters and the quorum; else disputed', () => {
    const t = tally(
      [
        { upstream: 'u0', hash: 'y' },
        { upstream: 'u1', hash: 'x' },
        { upstream: 'u2', hash: 'x' },
      ],
      2,
    );
    expect(t).toMatchObject({ kind: 'majority', winner: { hash: 'x', upstreams: ['u1', 'u2'] } });
    expect(
      tally(
        [
          { upstream: 'u0', hash: 'y' },
          { upstream: 'u1', hash: 'x' },
        ],
        2,
      ).kind,
    ).toBe('disputed');
    expect(
      tally(
        [
          { upstream: 'u0', hash: 'y' },
          { upstream: 'u1', hash: 'x' },
          { upstream: 'u2', hash: 'x' },
        ],
        3,
      ).kind,
    ).toBe('disputed');
    expect(
      tally(
        [
          { upstream: 'u0', hash: 'a' },
          { upstream: 'u1', hash: 'b' },
          { upstream: 'u2', hash: 'c' },
        ],
        2,
      ).kind,
    ).toBe('disputed');
  });
});

describe('content hash', () => {
  const ignored = VOTED.get(txList)!;
  it('canonical: key order and number spelling do not matter', () => {
    expect(canonicalJson(JSON.parse('{"b":1.0,"a":[{"d":2,"c":"x"}]}'))).toBe('{"a":[{"c":"x","d":2}],"b":1}');
  });
  it('time stamps, msg and links are left out; anything else counts', () => {
    const a = {
      code: 0,
      msg: 'success',
      data: { server_timestamp: 1, next: 'http://u0/x', previous: null, list: [{ tx_hash: 'aa' }] },
    };
    const b = { code: 0, msg: 'ok', data: { server_timestamp: 2, next: 'http://u1/x', list: [{ tx_hash: 'aa' }] } };
    expect(contentHash(a, ignored)).toBe(contentHash(b, ignored));
    expect(contentHash(a, ignored)).not.toBe(
      contentHash({ ...a, data: { ...a.data, list: [{ tx_hash: 'ab' }] } }, ignored),
    );
    expect(contentHash(a, ignored)).not.toBe(contentHash({ ...a, code: 404 }, ignored));
  });
  it('array items by *', () => {
    expect(without({ l: [{ t: 1, k: 2 }, { t: 3 }] }, [['l', '*', 't']])).toEqual({ l: [{ k: 2 }, {}] });
  });
  it('only endpoints with a final TTL are voted', () => {
    expect([...VOTED.keys()].map((m) => m.path).sort()).toEqual(['block/detail', 'tx/detail', 'tx/list']);
  });
  it("the module's declared stamps are left out, with msg and the links; nothing else", () => {
    const keys = (paths: readonly (readonly string[])[]): string[] => paths.map((p) => p.join('.')).sort();
    const envelope = ['data.next', 'data.previous', 'msg'];
    expect(keys(VOTED.get(txDetail)!)).toEqual(envelope);
    expect(keys(VOTED.get(blockDetail)!)).toEqual([...envelope, 'data.server_timestamp'].sort());
    expect(keys(ignoredFields(txNrc20.stamps))).toEqual(
      [...envelope, 'data.txnList.*.currentTimestamp', 'data.txnList.*.timeDiff'].sort(),
    );
    const block = { code: 0, msg: 'success', data: { height: 7, block_hash: 'aa', server_timestamp: 1 } };
    const later = { ...block, data: { ...block.data, server_timestamp: 2 } };
    expect(contentHash(block, VOTED.get(blockDetail)!)).toBe(contentHash(later, VOTED.get(blockDetail)!));
    expect(contentHash(block, VOTED.get(txDetail)!)).not.toBe(contentHash(later, VOTED.get(txDetail)!));
  });
});

describe('dispute log and strikes', () => {
  it('the log keeps the last N, counts all', () => {
    const log = new DisputeLog(2);
    for (let i = 0; i < 5; i++)
      log.append({ at: i, key: `k${i}`, endpoint: 'block/detail', outcome: 'majority', versions: [] });
    expect(log.total).toBe(5);
    expect(log.recent().map((d) => d.key)).toEqual(['k3', 'k4']);
  });
  it('K minority strikes within the window bench the upstream; older strikes expire', () => {
    const clock = fakeClock();
    const sitOuts = new SitOuts({ durationMs: 60_000, clock: clock.now });
    const m = new Misbehaviour({ strikes: 3, windowMs: 10_000, sitOuts, clock: clock.now });
    m.minority('u2', 'a');
    m.minority('u2', 'b');
    clock.advance(10_001);
    m.minority('u2', 'c'); // the first two are out of the window
    expect(sitOuts.active('u2')).toBe(false);
    m.minority('u2', 'd');
    m.minority('u2', 'e');
    expect(sitOuts.state('u2')).toMatchObject({ reason: 'disputes' });
    clock.advance(60_000);
    expect(sitOuts.active('u2')).toBe(false);
  });
});

describe('settings', () => {
  it('UPSTREAM_QUORUM and the misbehaviour settings are read and bounded', () => {
    const c = loadConfig({
      UPSTREAM_QUORUM: '2',
      UPSTREAM_SIT_OUT_MS: '5000',
      UPSTREAM_DISPUTE_STRIKES: '4',
      UPSTREAM_DISPUTE_WINDOW_MS: '60000',
    });
    expect(c.upstream).toMatchObject({ quorum: 2, sitOutMs: 5000, disputeStrikes: 4, disputeWindowMs: 60_000 });
    expect(loadConfig({}).upstream).toMatchObject({
      quorum: 1,
      sitOutMs: 60_000,
      disputeStrikes: 3,
      disputeWindowMs: 600_000,
    });
    expect(() => loadConfig({ UPSTREAM_QUORUM: '0' })).toThrow(/UPSTREAM_QUORUM/);
    expect(() => loadConfig({ UPSTREAM_QUORUM: 'two' })).toThrow(/UPSTREAM_QUORUM/);
  });
});
