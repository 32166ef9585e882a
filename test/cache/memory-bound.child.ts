/**
 * Child process of memory-bound.test.ts (run with --expose-gc): floods a
 * MemoryStore of MAX bytes with distinct keys, as the proxy builds them
 * (pooled small bodies, concatenated keys, other allocations in between), and
 * prints the heap growth against the bound as JSON.
 */
import { MemoryStore } from '../../src/cache/memory-store.js';
import { createEntry } from '../../src/cache/entry.js';

const maxBytes = Number(process.argv[2] ?? 8 * 1024 * 1024);
const kind = process.argv[3] ?? 'negative';
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
gc();
gc();
const before = used();
const store = new MemoryStore({ maxBytes, purgeIntervalMs: 0 });
const now = Date.now();
let noise: Buffer[] = [];
const N = Math.ceil((maxBytes / 200) * 2);
for (let i = 0; i < N; i++) {
  const hash = i.toString(16).padStart(64, '0');
  const key = 'tx/detail?hash=' + hash;
  const text =
    kind === 'negative'
      ? `{"code":404,"msg":"transaction ${hash.slice(0, 8)} not found","data":null}`
      : `{"code":0,"msg":"success","data":{"hash":"${hash}","value":"${'1'.repeat(300)}"}}`;
  const body = Buffer.from(text);
  noise.push(Buffer.from(`request ${i} headers and other per-request garbage`.repeat(4)));
  if (noise.length > 64) noise = [];
  store.put(
    createEntry({
      key,
      status: kind === 'negative' ? 404 : 200,
      body,
      createdAt: now,
      ttlMs: 3_600_000,
      swrMs: 0,
      sieMs: 0,
      head: 1,
      headDependent: false,
      finalAt: null,
      negative: kind === 'negative',
      stamps: [],
    }),
  );
}
noise = [];
gc();
gc();
const grown = used() - before;
process.stdout.write(
  JSON.stringify({ maxBytes, inserted: N, entries: store.entries, charged: store.bytes, grown }) + '\n',
);
