/** The named pure rules behind bounded trust, coverage and the good-answer check. */
import { describe, expect, it } from 'vitest';
import { HeadTrust, plausibleLimit } from '../../src/chain/head-trust.js';
import { ChainTracker } from '../../src/chain/tracker.js';
import { followDownTarget } from '../../src/upstream/prober.js';
import { covers } from '../../src/upstream/select.js';
import { compileSpec, dataSpecOf } from '../../src/schema/index.js';
import { answerProblem, hasDuplicateEnvelopeKeys, judge } from '../../src/upstream/judge.js';
import { fakeClock } from '../helpers/clock.js';

describe('plausibleLimit', () => {
  it('margin plus twice the observed rate over the elapsed time', () => {
    expect(plausibleLimit(100, 10, 0, 60_000)).toBe(110);
    expect(plausibleLimit(100, 10, 1 / 15_000, 150_000)).toBe(130); // 10 blocks expected, 20 allowed
  });
});

describe('HeadTrust / ChainTracker', () => {
  it('an implausible report needs a second one; the lower of the two is believed', () => {
    const clock = fakeClock();
    const t = new ChainTracker({ marginBlocks: 10, confirmWindowMs: 3000, clock: clock.now });
    expect(t.observeHead(1000, 'u0')).toBe(true);
    expect(t.observeHead(101_000, 'u0')).toBe(false);
    expect(t.bestHead()).toBe(1000);
    expect(t.observeHead(5000, 'u1')).toBe(true); // confirms u0's claim up to 5000
    expect(t.bestHead()).toBe(5000);
  });
  it('a source never confirms its own claim; another source does, within the window', () => {
    const clock = fakeClock();
    const trust = new HeadTrust({ marginBlocks: 10, confirmWindowMs: 3000, clock: clock.now });
    expect(trust.report(1000, 9000, 'u0')).toBeNull();
    for (let i = 0; i < 5; i++) expect(trust.report(1000, 9000, 'u0')).toBeNull();
    clock.advance(3001);
    expect(trust.report(1000, 9000, 'u1')).toBeNull(); // u0 went quiet: its claim expired
    clock.advance(1000);
    expect(trust.report(1000, 9000, 'u0')).toBe(9000); // u1's claim confirms it
  });
  it('a fixed far-ahead value is never plausible twice; a moving one becomes plausible with time', () => {
    const clock = fakeClock();
    const trust = new HeadTrust({ marginBlocks: 10, confirmWindowMs: 3000, clock: clock.now });
    trust.accepted(1000);
    clock.advance(10_000);
    trust.accepted(1010); // one block a second
    expect(trust.plausible(1010, 1500)).toBe(false);
    expect(trust.report(1010, 1500, 'u0')).toBeNull();
    clock.advance(300_000); // the head stood still for 300 s: 600 blocks allowed
    expect(trust.plausible(1010, 1500)).toBe(false); // the same value, once implausible
    expect(trust.report(1010, 1500, 'u0')).toBeNull();
    expect(trust.report(1010, 1501, 'u0')).toBe(1501); // a new height the elapsed time explains
  });
  it('a claim two other sources out-report for the window is refuted, once; one against one refutes nobody', () => {
    const clock = fakeClock();
    const refuted: string[] = [];
    const trust = new HeadTrust({
      marginBlocks: 10,
      confirmWindowMs: 3000,
      clock: clock.now,
      onRefuted: (s, h) => refuted.push(`${s}@${h}`),
    });
    for (let t = 0; t <= 4000; t += 500) {
      expect(trust.report(1000, 2000, 'liar')).toBeNull();
      expect(trust.report(1000, 1000, 'a')).toBe(1000);
      clock.advance(500);
    }
    expect(refuted).toEqual([]); // only one other source
    for (let t = 0; t <= 4000; t += 500) {
      trust.report(1000, 2000, 'liar');
      trust.report(1000, 1000, 'a');
      trust.report(1000, 1000, 'b');
      clock.advance(500);
    }
    expect(refuted).toEqual(['liar@2000', 'liar@2000']); // refuted, claimed anew, refuted again
  });
  it('the final height never exceeds the head; rebase lowers both', () => {
    const t = new ChainTracker();
    expect(t.observeFinal(10)).toBe(false); // no head yet
    t.observeHead(100, 'u0');
    expect(t.observeFinal(150)).toBe(false);
    expect(t.observeFinal(90)).toBe(true);
    expect(t.rebase(50)).toBe(true);
    expect([t.bestHead(), t.finalHeight()]).toEqual([50, 50]);
  });
});

describe('followDownTarget', () => {
  it('the highest head when every answering upstream is below the trusted head', () => {
    expect(followDownTarget(100, [90, 95, null])).toBe(95);
    expect(followDownTarget(100, [90, 100])).toBeNull();
    expect(followDownTarget(100, [null, null])).toBeNull();
    expect(followDownTarget(null, [5])).toBeNull();
  });
});

describe('covers', () => {
  it('own head for data, own final height (head − finality depth) for final data', () => {
    expect(covers(100, 100, false, 120, 105)).toBe(true);
    expect(covers(100, 101, false, 120, 105)).toBe(false);
    expect(covers(100, 85, true, 120, 105)).toBe(true);
    expect(covers(100, 86, true, 120, 105)).toBe(false);
    expect(covers(null, 1, false, 120, 105)).toBe(false);
  });
});

describe('the good-answer check', () => {
  const max = compileSpec(dataSpecOf('block/max')!);
  it('tolerates extra fields, not missing ones or wrong types', () => {
    expect(max({ height: 5, server_timestamp: 1, extra: true })).toBe(true);
    expect(max({ height: 5 })).toBe(false);
    expect(max({ height: '5', server_timestamp: 1 })).toBe(false);
  });
  it('verdicts', () => {
    const ok = { code: 0, msg: 'success', data: { height: 5, server_timestamp: 1 } };
    expect(judge('block/max', 200, ok, Buffer.from(JSON.stringify(ok)))).toBe('good');
    expect(judge('block/max', 404, { code: 404, msg: 'x', data: null }, null)).toBe('negative');
    expect(judge('block/max', 200, { code: 0, data: ok.data }, null)).toBe('bad');
    expect(answerProblem('block/max', 200, { code: 0, msg: 's', data: null }, Buffer.from('{}'))).toMatch(/schema/);
  });
  it('duplicate keys, including escaped spellings', () => {
    expect(hasDuplicateEnvelopeKeys(Buffer.from('{"code":1,"msg":"a","data":null,"code":0}'))).toBe(true);
    expect(hasDuplicateEnvelopeKeys(Buffer.from('{"code":1,"msg":"a","data":null,"\\u0063ode":0}'))).toBe(true);
    expect(hasDuplicateEnvelopeKeys(Buffer.from('{"code":0,"msg":"a","data":{"next":"x","next":"y"}}'))).toBe(true);
    expect(
      hasDuplicateEnvelopeKeys(Buffer.from('{"code":0,"msg":"a","data":{"list":[{"data":"x"},{"data":"y"}]}}')),
    ).toBe(false);
  });
});
