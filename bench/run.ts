/**
 * `npm run bench [-- --quick] [-- --only a,b] [-- --block-interval MS] [-- --no-nginx]`
 *
 * Scenarios (bench/scenarios/): a hit path (vs bare Fastify, nginx), b explorer
 * mix, c cold misses on a slow upstream, d 500-request stampede, e misses with
 * one of three upstreams hung (hedging on/off), f Redis tier (when
 * redis-server is installed), g 2000 concurrent misses against a slow upstream
 * (load shedding), h head stream and refresh-ahead, p pages (explorer session
 * through pages vs single endpoints, hot /pages/home hit), m distinct-key flood
 * against a 32 MiB bound, s /metrics scraped during hits, r a fleet of 1, 2 and 3
 * replicas behind nginx round-robin on one Redis, n WORKERS=2 against one
 * process (CPU per memory hit, the oracle workload), l a rolling restart of 3
 * replicas behind the recipe nginx. Every server is a
 * child process; autocannon runs
 * here. Prints a table and writes bench/results/latest.{md,json}.
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type { Ctx, Scenario } from './lib/context.js';
import { NGINX_BIN, startNginx, type NginxProc } from './lib/nginx.js';
import { stopAll } from './lib/proc.js';
import { startProxyProc, type ProxyProc } from './lib/proxy.js';
import { markdownTable, ratioTable, writeResults, type Ratio, type Row } from './lib/results.js';
import { startSim, type SimProc } from './lib/sim.js';
import { hitPath } from './scenarios/a-hit-path.js';
import { mix } from './scenarios/b-mix.js';
import { coldMiss } from './scenarios/c-cold-miss.js';
import { stampede } from './scenarios/d-stampede.js';
import { hedging } from './scenarios/e-hedging.js';
import { redis } from './scenarios/f-redis.js';
import { shed } from './scenarios/g-shed.js';
import { pages } from './scenarios/p-pages.js';
import { stream } from './scenarios/h-stream.js';
import { flood } from './scenarios/m-flood.js';
import { scrape } from './scenarios/s-scrape.js';
import { budget } from './scenarios/k-budget.js';
import { quorum } from './scenarios/q-quorum.js';
import { oracle } from './scenarios/o-oracle.js';
import { watch } from './scenarios/w-watch.js';
import { fleet } from './scenarios/r-fleet.js';
import { workers } from './scenarios/n-workers.js';
import { restart } from './scenarios/l-restart.js';

const SCENARIOS: Scenario[] = [
  hitPath,
  mix,
  coldMiss,
  stampede,
  hedging,
  redis,
  shed,
  stream,
  pages,
  flood,
  scrape,
  budget,
  quorum,
  oracle,
  watch,
  fleet,
  workers,
  restart,
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      'block-interval': { type: 'string', default: '15000' }, // the real chain's block time
      'no-nginx': { type: 'boolean', default: false },
      long: { type: 'boolean', default: false }, // (o): 5 min measured per mode
      // (o): seconds of the cold window, the warm-up after the crawl, the measured window
      'oracle-cold': { type: 'string' },
      'oracle-warmup': { type: 'string' },
      'oracle-window': { type: 'string' },
      'oracle-intervals': { type: 'string' },
      'oracle-spread': { type: 'boolean', default: false },
      'oracle-crawl': { type: 'string' },
      'oracle-no-internal': { type: 'boolean', default: false }, // (o): simulators without internal transfers
      // (r): fleet sizes (default 1,2,3), the crawl (on unless --quick), and each phase's seconds
      'fleet-sizes': { type: 'string' },
      'fleet-crawl': { type: 'boolean', default: false },
      'fleet-no-crawl': { type: 'boolean', default: false },
      'fleet-warmup': { type: 'string' },
      'fleet-window': { type: 'string' },
      'fleet-idle': { type: 'string' },
      'fleet-propagation': { type: 'string' },
      // (l): the plain balancer too (no retry on another replica)
      'restart-plain': { type: 'boolean', default: false },
      'restart-rounds': { type: 'string' }, // (l): rounds per restart plan (default 8, 1 with --quick)
      'restart-settle': { type: 'string' }, // (l): unmeasured seconds between rounds (default 30, 5 with --quick)
      'restart-no-halves': { type: 'boolean', default: false }, // (l): leave the halves design out
      'restart-no-fleets': { type: 'boolean', default: false }, // (l): leave the fleets design out
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'npm run bench -- [--quick | --long] [--only a,b,…] [--block-interval MS] [--no-nginx] ' +
        '[--oracle-cold S] [--oracle-warmup S] [--oracle-window S] [--oracle-intervals 5000,1000] ' +
        '[--oracle-spread] [--oracle-crawl S] [--oracle-no-internal] [--fleet-sizes 1,2,3] ' +
        '[--fleet-crawl | --fleet-no-crawl] [--fleet-warmup S] [--fleet-window S] [--fleet-idle S] ' +
        '[--fleet-propagation S] [--restart-plain] [--restart-rounds N] [--restart-settle S] ' +
        '[--restart-no-halves | --restart-no-fleets]\n' +
        `${SCENARIOS.map((s) => `  ${s.id}  ${s.title}`).join('\n')}\n`,
    );
    return;
  }
  const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null;
  const selected = SCENARIOS.filter((s) => only === null || only.has(s.id));
  const quick = values.quick === true;
  const blockIntervalMs = Number(values['block-interval']);
  const t0 = Date.now();
  const rows: Row[] = [];
  const ratios: Ratio[] = [];
  const notes: string[] = [];
  const useNginx = NGINX_BIN !== null && !values['no-nginx'];
  if (!useNginx)
    notes.push(NGINX_BIN === null ? 'nginx not installed: nginx rows skipped.' : 'nginx rows skipped (--no-nginx).');

  let proxyStack: Promise<{ sim: SimProc; proxy: ProxyProc }> | null = null;
  let nginxStack: Promise<{ sim: SimProc; nginx: NginxProc } | null> | null = null;
  const ctx: Ctx = {
    quick,
    d: (full, q) => (quick ? q : full),
    blockIntervalMs,
    proxyStack: () =>
      (proxyStack ??= (async () => {
        const sim = await startSim({ blockIntervalMs, name: 'sim-proxy' });
        const proxy = await startProxyProc([sim.url]);
        return { sim, proxy };
      })()),
    nginxStack: () =>
      (nginxStack ??= (async () => {
        if (!useNginx) return null;
        const sim = await startSim({ blockIntervalMs, name: 'sim-nginx' });
        try {
          const nginx = await startNginx(sim.url);
          return { sim, nginx };
        } catch (e) {
          notes.push(
            'nginx failed to start, nginx rows skipped: ' +
              `${e instanceof Error ? e.message.split('\n').slice(0, 2).join(' ') : String(e)}`,
          );
          await sim.close();
          return null;
        }
      })()),
    rows,
    ratios,
    notes,
    log: (m) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`),
  };

  const onSignal = (): void => {
    void stopAll().then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    // Start both shared stacks at once (they are independent processes).
    if (selected.some((s) => 'abcd'.includes(s.id))) await Promise.all([ctx.proxyStack(), ctx.nginxStack()]);
    for (const s of selected) {
      ctx.log(`(${s.id}) ${s.title}…`);
      const n = rows.length;
      try {
        await s.run(ctx);
      } catch (e) {
        const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
        notes.push(`(${s.id}) FAILED: ${msg}`);
        ctx.log(`(${s.id}) failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      }
      process.stderr.write(markdownTable(rows.slice(n)) + '\n');
    }
  } finally {
    await stopAll();
  }

  const cpu = cpus();
  const { md, paths } = writeResults(
    {
      startedAt: new Date(t0).toISOString(),
      mode: quick ? 'quick' : 'full',
      machine:
        `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ` +
        `${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
      blockIntervalMs,
      notes,
      wallSeconds: (Date.now() - t0) / 1000,
    },
    rows,
    ratios,
  );
  process.stdout.write(
    '\n' +
      markdownTable(rows) +
      '\n\n' +
      ratioTable(ratios) +
      '\n' +
      (notes.length ? '\n' + notes.map((n) => `- ${n}`).join('\n') + '\n' : ''),
  );
  process.stdout.write(`\nwritten: ${paths.join(', ')} (${md.length} bytes)\n`);
}

main().catch(async (e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  await stopAll();
  process.exit(1);
});
