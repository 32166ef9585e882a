/**
 * (k) Miss budget: hot-key clients (200 client IPs through TRUST_PROXY, a
 * fixed offered rate over a Zipf-ranked set of hot keys) alone, then with one
 * scanner (one IP, 360 requests per minute, every request a key never seen,
 * the issue's case: under the request limit, every request a miss).
 *
 * Rates as the defaults (600 requests and 120 misses per client per minute)
 * on a 10 s window (100 and 20), so the budget's steady state shows in a
 * short run. After a warm-up, on one proxy: rounds of 5 s of hot alone and
 * 5 s of hot + scanner, interleaved; then hot + scanner on a second proxy with
 * RATE_LIMIT_MISS_BUDGET=0 (what the scanner costs without a budget). Reported per phase: hot req/s and p99, the
 * scanner's answered misses (= its upstream requests) per minute and 429s.
 * Ratios: hot throughput and p99 with / without the scanner (same proxy, one
 * run), and the scanner's upstream requests over the budget's bound
 * (budget + refill over the phase).
 */
import autocannon from 'autocannon';
import type { Ctx, Scenario } from '../lib/context.js';
import { getJson } from '../lib/proc.js';
import { startProxyProc, type ProxyProc } from '../lib/proxy.js';
import { startSim, type SimProc } from '../lib/sim.js';
import { rng, zipf } from '../lib/zipf.js';

const WINDOW_MS = 10_000;
const MAX = 100; // 600 per minute
const BUDGET = 20; // 120 per minute
const HOT_IPS = 200;
const HOT_RATE = 1000; // req/s offered by all hot clients together
const HOT_CONNECTIONS = 20;
const SCANNER_RATE = 6; // req/s: 360 per minute
const SCANNER_IP = '198.51.100.66';

interface Phase {
  hotRps: number;
  hotP50: number;
  hotP99: number;
  hotNon2xx: number;
  scanOk: number;
  scan429: number;
  seconds: number;
}

function hotPaths(head: number): string[] {
  const paths = ['/block/max', '/chain/summary', '/token/list', '/nax/summary', '/tx/count/today'];
  for (const p of [1, 2, 3]) paths.push(`/tx/list?page=${p}&page_size=20`, `/block/list?page=${p}&page_size=20`);
  for (let k = 20; k < 70; k++) paths.push(`/block/detail?h=${head - k}`);
  return paths;
}

async function hot(url: string, paths: string[], seconds: number): Promise<autocannon.Result> {
  const random = rng(7);
  const rank = zipf(paths.length, 1.1, random);
  let n = 0;
  return autocannon({
    url,
    connections: HOT_CONNECTIONS,
    duration: seconds,
    overallRate: HOT_RATE,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: paths[rank()]!,
          headers: { ...req.headers, 'x-forwarded-for': `10.1.${(n = (n + 1) % HOT_IPS) >> 8}.${n & 255}` },
        }),
      },
    ],
  });
}

async function scanner(url: string, seconds: number, start: number): Promise<autocannon.Result> {
  let h = start;
  return autocannon({
    url,
    connections: 2,
    duration: seconds,
    overallRate: SCANNER_RATE,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: `/block/detail?h=${h--}`,
          headers: { ...req.headers, 'x-forwarded-for': SCANNER_IP },
        }),
      },
    ],
  });
}

async function phase(proxy: ProxyProc, paths: string[], seconds: number, scanFrom: number | null): Promise<Phase> {
  const t0 = Date.now();
  const [h, s] = await Promise.all([
    hot(proxy.url, paths, seconds),
    scanFrom === null ? null : scanner(proxy.url, seconds, scanFrom),
  ]);
  return {
    hotRps: h.requests.total / ((Date.now() - t0) / 1000),
    hotP50: h.latency.p50,
    hotP99: h.latency.p99,
    hotNon2xx: h.non2xx,
    scanOk: s === null ? 0 : s['2xx'],
    scan429: s === null ? 0 : s.non2xx,
    seconds: (Date.now() - t0) / 1000,
  };
}

async function startBudgetProxy(sim: SimProc, budget: number, name: string): Promise<ProxyProc> {
  return startProxyProc(
    [sim.url],
    {
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_MAX: String(MAX),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      RATE_LIMIT_MISS_BUDGET: String(budget),
      TRUST_PROXY: '127.0.0.1',
    },
    name,
  );
}

/** Fills the hot keys, then runs the hot mix unmeasured (JIT, connections). */
async function warm(proxy: ProxyProc, paths: string[], seconds: number): Promise<void> {
  let i = 0;
  for (const p of paths)
    await getJson(`${proxy.url}${p}`, { headers: { 'x-forwarded-for': `10.2.0.${i++ % 250}` } }).catch(() => undefined);
  await hot(proxy.url, paths, seconds);
}

export const budget: Scenario = {
  id: 'k',
  title: 'miss budget: hot clients with and without a scanner',
  async run(ctx: Ctx) {
    const sim = await startSim({ blockIntervalMs: ctx.blockIntervalMs, name: 'sim-budget' });
    const rounds = ctx.d(3, 1);
    const seconds = 5;
    const warmup = ctx.d(3, 1);
    try {
      const head = await sim.head();
      const paths = hotPaths(head);
      const alone: Phase[] = [];
      const withScanner: Phase[] = [];
      let scanStart = 0;
      let scanEnd = 0;
      const on = await startBudgetProxy(sim, BUDGET, 'proxy-budget');
      try {
        await warm(on, paths, warmup);
        // Interleaved rounds (the machine's noise hits both alike); the scanner goes on where it stopped.
        let from = head - 100_000;
        scanStart = Date.now();
        for (let i = 0; i < rounds; i++) {
          alone.push(await phase(on, paths, seconds, null));
          const p = await phase(on, paths, seconds, from);
          from -= p.scanOk + p.scan429 + 10;
          withScanner.push(p);
        }
        scanEnd = Date.now();
      } finally {
        await on.close();
      }
      const off = await startBudgetProxy(sim, 0, 'proxy-no-budget');
      let noBudget: Phase;
      try {
        await warm(off, paths, warmup);
        noBudget = await phase(off, paths, seconds * rounds, head - 200_000);
      } finally {
        await off.close();
      }

      const a = sum(alone);
      const w = sum(withScanner);
      const perMin = (p: Phase) => (p.scanOk / p.seconds) * 60;
      const row = (target: string, p: Phase, note: string) =>
        ctx.rows.push({
          scenario: 'k miss budget',
          target,
          rps: p.hotRps,
          p50: p.hotP50,
          p99: p.hotP99,
          hitRatio: null,
          upPer1000: null,
          note,
        });
      row(
        'hot alone',
        a,
        `${HOT_IPS} IPs, ${HOT_RATE} req/s offered, ${rounds} × ${seconds} s ` +
          `interleaved${a.hotNon2xx ? `; ${a.hotNon2xx} non-2xx` : ''}`,
      );
      const spanMin = (scanEnd - scanStart) / 60_000;
      row(
        'hot + scanner',
        w,
        `scanner 360/min: ${w.scanOk} misses (${(w.scanOk / spanMin).toFixed(0)}/min over its ` +
          `span), ${w.scan429} refused${w.hotNon2xx ? `; hot ${w.hotNon2xx} non-2xx` : ''}`,
      );
      row(
        'hot + scanner, budget 0',
        noBudget,
        `scanner: ${noBudget.scanOk} misses (${perMin(noBudget).toFixed(0)}/min), ${noBudget.scan429} refused`,
      );

      // Over the whole span from its first to its last request, refills included.
      const bound = BUDGET + ((scanEnd - scanStart) * BUDGET) / WINDOW_MS;
      const tput = w.hotRps / a.hotRps;
      const p99 = w.hotP99 / Math.max(a.hotP99, 1);
      const scan = w.scanOk / bound;
      ctx.ratios.push(
        {
          name: 'k hot req/s with scanner / alone',
          value: tput,
          goal: '>= 0.95',
          pass: tput >= 0.95,
          detail: `${w.hotRps.toFixed(0)} / ${a.hotRps.toFixed(0)} req/s (offered ${HOT_RATE})`,
        },
        {
          name: 'k hot p99 with scanner / alone',
          value: p99,
          goal: '<= 1.5',
          pass: p99 <= 1.5,
          detail: `median of ${rounds} interleaved rounds: ${w.hotP99} / ${a.hotP99} ms`,
        },
        {
          name: 'k scanner upstream requests / budget bound',
          value: scan,
          goal: '<= 1',
          pass: scan <= 1,
          detail:
            `${w.scanOk} misses over ${((scanEnd - scanStart) / 1000).toFixed(1)} s, bound ${bound.toFixed(0)} ` +
            `(budget + refill); without a budget ${noBudget.scanOk} in ${noBudget.seconds.toFixed(1)} s`,
        },
      );
    } finally {
      await sim.close();
    }
  },
};

/** Totals over rounds; the median of the rounds' percentiles. */
function sum(ps: readonly Phase[]): Phase {
  const med = (xs: number[]): number => {
    const s = [...xs].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const seconds = ps.reduce((t, p) => t + p.seconds, 0);
  return {
    hotRps: ps.reduce((t, p) => t + p.hotRps * p.seconds, 0) / seconds,
    hotP50: med(ps.map((p) => p.hotP50)),
    hotP99: med(ps.map((p) => p.hotP99)),
    hotNon2xx: ps.reduce((t, p) => t + p.hotNon2xx, 0),
    scanOk: ps.reduce((t, p) => t + p.scanOk, 0),
    scan429: ps.reduce((t, p) => t + p.scan429, 0),
    seconds,
  };
}
