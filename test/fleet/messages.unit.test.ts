/**
 * The one table of fleet messages (src/fleet/messages.ts): every kind in it,
 * by its example, goes through both transports' encoding and check and comes
 * out as sent (a new row is covered without touching this file); the JSON a
 * previous version sends and reads is still what is sent and read (a fleet
 * mid rolling restart); malformed messages and unknown kinds are dropped.
 */
import { describe, expect, it } from 'vitest';
import { decodeRedis, encodeRedis } from '../../src/fleet/bus.js';
import { KINDS, type Kind, type MessagePayload } from '../../src/fleet/messages.js';
import { fromIpc, toIpc } from '../../src/cluster/protocol.js';

const kinds = Object.keys(KINDS) as Kind[];
const example = <K extends Kind>(k: K): MessagePayload<K> => KINDS[k].example as unknown as MessagePayload<K>;
/** As the IPC channel carries it (node:cluster serializes messages as JSON). */
const overIpc = (m: unknown): unknown => JSON.parse(JSON.stringify(m));

describe('every kind of the table', () => {
  it.each(kinds)('%s round-trips through Redis pub/sub and the IPC channel', (kind) => {
    const a = example(kind);
    expect(decodeRedis(encodeRedis('r1', kind, a))).toEqual({ from: 'r1', t: kind, a });
    expect(fromIpc(overIpc(toIpc(kind, a)))).toEqual({ t: kind, a });
  });

  it.each(kinds)('%s without its fields is dropped by both transports', (kind) => {
    expect(decodeRedis(JSON.stringify({ v: 1, from: 'r1', t: kind }))).toBeUndefined();
    expect(fromIpc({ t: kind, a: [] })).toBeUndefined();
  });
});

/** Messages exactly as the version before the table wrote them, with the arguments they carry. */
const PREVIOUS: Array<[string, Kind, unknown[]]> = [
  ['{"v":1,"from":"r","t":"head","height":100,"final":false}', 'head', [100, false]],
  ['{"v":1,"from":"r","t":"filled","key":"x"}', 'filled', ['x']],
  [
    '{"v":1,"from":"r","t":"touched","set":{"height":5,"blockHash":"h","addresses":["a"],"contracts":[],' +
      '"deployed":[],"day":null,"tokens":[],"complete":true},"pending":{"hashes":[],"addresses":[],"contracts":[]}}',
    'touched',
    [
      {
        height: 5,
        blockHash: 'h',
        addresses: ['a'],
        contracts: [],
        deployed: [],
        day: null,
        tokens: [],
        complete: true,
      },
      { hashes: [], addresses: [], contracts: [] },
    ],
  ],
  [
    '{"v":1,"from":"r","t":"purge","mark":{"target":"/x","soft":false,"at":9}}',
    'purge',
    [{ target: '/x', soft: false, at: 9 }],
  ],
  [
    '{"v":1,"from":"r","t":"heads","lease":"leader:","heads":[{"id":"u","head":null,"ok":false,"ageMs":3}]}',
    'heads',
    ['leader:', [{ id: 'u', head: null, ok: false, ageMs: 3 }]],
  ],
  ['{"v":1,"from":"r","t":"pool","lease":"leader:","known":false}', 'pool', ['leader:', { known: false }]],
  [
    '{"v":1,"from":"r","t":"pool","lease":"leader:","known":true,"stale":true,' +
      '"pending":{"hashes":["0x1"],"addresses":[],"contracts":[]}}',
    'pool',
    ['leader:', { known: true, stale: true, pending: { hashes: ['0x1'], addresses: [], contracts: [] } }],
  ],
  ['{"v":1,"from":"r","t":"entries","lease":"leader:","entries":["ZQ=="]}', 'entries', ['leader:', ['ZQ==']]],
];

describe('the wire of the previous version', () => {
  it.each(PREVIOUS)('%s is read, and written byte for byte', (text, kind, a) => {
    expect(decodeRedis(text)).toEqual({ from: 'r', t: kind, a });
    expect(encodeRedis('r', kind, a as MessagePayload<typeof kind>)).toBe(text);
  });

  it('an IPC bus message is its kind and its listener arguments', () => {
    expect(toIpc('head', [8, true])).toEqual({ t: 'head', a: [8, true] });
    expect(fromIpc({ t: 'heads', a: ['l', [{ id: 'u', head: 1, ok: true, ageMs: 0 }]] })).toEqual({
      t: 'heads',
      a: ['l', [{ id: 'u', head: 1, ok: true, ageMs: 0 }]],
    });
  });
});

describe('what is dropped', () => {
  it('unknown kinds (a newer replica), names of the prototype, other versions and broken JSON', () => {
    expect(decodeRedis('{"v":1,"from":"r","t":"later","x":1}')).toBeUndefined();
    expect(decodeRedis('{"v":1,"from":"r","t":"toString"}')).toBeUndefined();
    expect(decodeRedis('{"v":2,"from":"r","t":"head","height":1,"final":false}')).toBeUndefined();
    expect(decodeRedis('{"v":1,"t":"head","height":1,"final":false}')).toBeUndefined();
    expect(decodeRedis('{"v":1,')).toBeUndefined();
    expect(fromIpc({ t: 'later', a: [1] })).toBeUndefined();
    expect(fromIpc({ t: 'head', a: 'no' })).toBeUndefined();
    expect(fromIpc(null)).toBeUndefined();
  });

  it('fields of the wrong shape', () => {
    expect(decodeRedis('{"v":1,"from":"r","t":"head","height":1.5,"final":false}')).toBeUndefined();
    expect(decodeRedis('{"v":1,"from":"r","t":"pool","lease":"l","known":true,"stale":false}')).toBeUndefined();
    const long = 'x'.repeat(16 * 1024 + 1);
    expect(fromIpc({ t: 'heads', a: ['l', [{ id: 'u', head: 1, ok: true, ageMs: 0, answer: long }]] })).toBeUndefined();
    expect(fromIpc({ t: 'purge', a: [{ target: '/x', soft: 'no', at: 1 }] })).toBeUndefined();
  });

  it("a 'heads' message's malformed block intervals are left out, its heads kept", () => {
    const heads = [{ id: 'u', head: 1, ok: true, ageMs: 0 }];
    for (const bad of [[-1], ['x'], 'no', new Array(65).fill(1000)])
      expect(fromIpc({ t: 'heads', a: ['l', heads, bad] })).toEqual({ t: 'heads', a: ['l', heads] });
    expect(decodeRedis('{"v":1,"from":"r","t":"heads","lease":"l","heads":[],"intervals":[0]}')).toEqual({
      from: 'r',
      t: 'heads',
      a: ['l', []],
    });
  });

  it("a 'pool' message's list of the pool is kept when it is one, left out when malformed", () => {
    const pending = { hashes: [], addresses: [], contracts: [] };
    const state = { known: true, stale: false, pending };
    expect(fromIpc({ t: 'pool', a: ['l', { ...state, pool: ['0x1'] }] })).toEqual({
      t: 'pool',
      a: ['l', { ...state, pool: ['0x1'] }],
    });
    for (const bad of [[1], 'no', null])
      expect(fromIpc({ t: 'pool', a: ['l', { ...state, pool: bad }] })).toEqual({ t: 'pool', a: ['l', state] });
  });

  it("only 'filled' goes back to its sender", () => {
    expect(kinds.filter((k) => KINDS[k].echo)).toEqual(['filled']);
  });
});
