/**
 * CPU cost of simulator responses, HTTP excluded: `npx tsx bench/sim-cpu.ts`.
 * Renders N responses per endpoint variant at varying pages (lists: pages of 20) and reports CPU µs per response
 * (process.cpuUsage, user + system).
 */
import { runEndpoint, type ApiContext, type Query } from '../src/sim/api.js';
import { SimChain } from '../src/sim/chain.js';
import { normalAddress } from '../src/sim/ids.js';

const N = Number(process.argv[2] ?? 10_000);
const chain = new SimChain({ seed: 1, startHeight: 4_842_000, finalityDepth: 15, blockIntervalMs: 0 });
const ctx: ApiContext = { chain, nowMs: Date.now(), baseUrl: 'http://127.0.0.1:9001' };

const cases: [string, (i: number) => Query][] = [
  ['tx/list', (i) => ({ page: String(1 + (i % 5000)), page_size: '20' })],
  ['tx/list/pending', () => ({})],
  ['tx/listByAddress', (i) => ({ address: normalAddress(1, i % 4000), page: '1' })],
  ['block/list', (i) => ({ page: String(1 + (i % 5000)) })],
  ['token/tx/list', (i) => ({ token: 'NAX', page: String(1 + (i % 100)) })],
  ['holders', (i) => ({ page: String(1 + (i % 400)) })],
  ['tx/nrc20', (i) => ({ address: normalAddress(1, 16 + (i % 4000)) })],
  ['block/detail', (i) => ({ h: String(4_000_000 + i) })],
  ['address/info', (i) => ({ address: normalAddress(1, (i * 7919) % 400_000) })],
  ['token/holders', (i) => ({ token: 'ATP', page: String(1 + (i % 200)) })], // full pages before and after
];

let bytes = 0;
for (const [path, q] of cases) {
  for (let i = 0; i < 500; i++) runEndpoint(path, q(i), ctx); // warm-up
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) bytes += runEndpoint(path, q(i), ctx).body.length;
  const d = process.cpuUsage(t0);
  const us = (d.user + d.system) / N;
  process.stdout.write(`${path.padEnd(18)} ${us.toFixed(1).padStart(7)} µs CPU per response\n`);
}
process.stdout.write(`(${bytes} bytes rendered)\n`);
