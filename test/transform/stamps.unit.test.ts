import { describe, expect, it } from 'vitest';
import { renderBody } from '../../src/cache/render.js';
import { findStamps } from '../../src/transform/stamps.js';
import { fixture, fixtures } from './fixtures.js';

const NOW = 1_700_000_123_456;

type Nrc20Item = { timestamp: number; currentTimestamp: number; timeDiff: number };

describe('findStamps + renderBody', () => {
  it('stamps data.server_timestamp of tx/list and re-renders without touching anything else', () => {
    const { body } = fixture('tx/list');
    const stamps = findStamps(body, 'tx/list');
    expect(stamps).toHaveLength(1);
    expect(stamps[0]?.kind).toBe('now');
    expect(body.toString('latin1', stamps[0]?.start, stamps[0]?.end)).toBe('1595157487445');
    const out = renderBody({ body, stamps }, NOW);
    const before = JSON.parse(body.toString());
    const after = JSON.parse(out.toString());
    expect(after.data.server_timestamp).toBe(NOW);
    expect({ ...after, data: { ...after.data, server_timestamp: 0 } }).toEqual({
      ...before,
      data: { ...before.data, server_timestamp: 0 },
    });
  });

  it('stamps every fixture that has data.server_timestamp, and nothing else', () => {
    for (const f of fixtures) {
      const body = Buffer.from(f.body);
      const parsed = JSON.parse(f.body) as { data: unknown };
      const hasTs = typeof parsed.data === 'object' && parsed.data !== null && 'server_timestamp' in parsed.data;
      const stamps = findStamps(body, f.path);
      if (f.path === 'tx/nrc20') continue;
      expect(stamps.length, f.path).toBe(hasTs ? 1 : 0);
      if (!hasTs) expect(renderBody({ body, stamps }, NOW)).toBe(body);
    }
  });

  it('tx/nrc20: currentTimestamp = now and timeDiff = now - timestamp per item; the rest is equal', () => {
    const { body } = fixture('tx/nrc20');
    const stamps = findStamps(body, 'tx/nrc20');
    const before = JSON.parse(body.toString()) as { data: { txnList: Nrc20Item[] } };
    expect(stamps).toHaveLength(before.data.txnList.length * 2);
    expect(stamps.map((s) => s.kind)).toEqual(before.data.txnList.flatMap(() => ['now', 'diff']));
    for (const later of [NOW, NOW + 999, NOW + 86_400_000]) {
      const after = JSON.parse(renderBody({ body, stamps }, later).toString()) as { data: { txnList: Nrc20Item[] } };
      after.data.txnList.forEach((item, i) => {
        const orig = before.data.txnList[i] as Nrc20Item;
        expect(item.currentTimestamp).toBe(later);
        expect(item.timeDiff).toBe(item.currentTimestamp - item.timestamp);
        expect({ ...item, currentTimestamp: 0, timeDiff: 0 }).toEqual({ ...orig, currentTimestamp: 0, timeDiff: 0 });
      });
      const strip = (v: { data: { txnList: Nrc20Item[] } }) => ({
        ...v,
        data: { ...v.data, txnList: v.data.txnList.map((t) => ({ ...t, currentTimestamp: 0, timeDiff: 0 })) },
      });
      expect(strip(after)).toEqual(strip(before));
    }
    // The original relation holds in the fixture itself (sanity of the fixture).
    for (const t of before.data.txnList) expect(t.timeDiff).toBe(t.currentTimestamp - t.timestamp);
  });

  it('keeps .0 numbers byte for byte (block/max, holders)', () => {
    const max = fixture('block/max').body;
    const out = renderBody({ body: max, stamps: findStamps(max, 'block/max') }, NOW).toString();
    expect(out).toBe(`{"code":0,"msg":"success","data":{"height":4842503.0,"server_timestamp":${NOW}}}`);
    const holders = fixture('holders').body;
    expect(findStamps(holders, 'holders')).toEqual([]);
    expect(renderBody({ body: holders, stamps: [] }, NOW).toString()).toContain(':1.0}');
  });

  it('only knows the named fields: nrc20 fields elsewhere, nested server_timestamp, non-numbers are ignored', () => {
    const body = Buffer.from(
      '{"code":0,"msg":"success","data":{"list":[{"server_timestamp":1,"currentTimestamp":2,"timeDiff":3}],' +
        '"server_timestamp":"x","txnList":[{"currentTimestamp":5,"timeDiff":4,"timestamp":1}]}}',
    );
    expect(findStamps(body, 'tx/list')).toEqual([]);
    const nrc = findStamps(body, 'tx/nrc20');
    expect(nrc.map((s) => s.kind)).toEqual(['now', 'diff']);
    expect(nrc[1]?.base).toBe(1);
  });

  it('tolerates absent fields and bad bodies', () => {
    const noBase = Buffer.from(
      '{"code":0,"msg":"success","data":{"txnList":[{"currentTimestamp":5,"timeDiff":4},{},1,null]}}',
    );
    expect(findStamps(noBase, 'tx/nrc20').map((s) => s.kind)).toEqual(['now']);
    for (const s of [
      '',
      'nope',
      '{"data":null}',
      '{"data":[1]}',
      '{"data":{"txnList":{}}}',
      '{"data":{"server_timestamp":1',
    ]) {
      expect(findStamps(Buffer.from(s), 'tx/nrc20')).toEqual([]);
    }
  });

  it('renders a digit count that differs from the stored one', () => {
    const body = Buffer.from('{"data":{"server_timestamp":5,"x":1.0}}');
    const stamps = findStamps(body, 'block/max');
    expect(renderBody({ body, stamps }, NOW).toString()).toBe(`{"data":{"server_timestamp":${NOW},"x":1.0}}`);
  });
});
