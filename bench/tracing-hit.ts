/**
 * Tracing's cost on the hit path: CPU time per request (utime + stime from
 * /proc) of a memory hit (a cached final `block/detail`, answered before the
 * router) on a proxy with tracing off and one exporting over OTLP/HTTP to a
 * sink run here, sampling `parentbased_traceidratio` at 0.01, at the same
 * offered load, in interleaved rounds. Target: on <= 1.1 x off (median ratio).
 *
 *   npx tsx bench/tracing-hit.ts [--rounds N] [--rate R] [--duration S]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { median } from './lib/context.js';
import { cpuSeconds, stopAll } from './lib/proc.js';
import { startProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '4' },
  },
});

async function main(): Promise<void> {
  let exports = 0;
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const common = { UPSTREAM_URLS: '', SIM_BLOCK_INTERVAL_MS: '3600000' };
  const procs = {
    off: await startProxyProc([], common, 'off'),
    on: await startProxyProc(
      [],
      {
        ...common,
        OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
      },
      'on',
    ),
  };
  const path = '/block/detail?h=1';
  for (const p of Object.values(procs)) {
    await runLoad({ url: p.url, path, connections: 10, duration: 2 });
    const r = await fetch(`${p.url}${path}`);
    await r.arrayBuffer();
    if (r.headers.get('x-cache') !== 'HIT') throw new Error(`${path}: not a hit (${r.headers.get('x-cache')})`);
  }
  const us: Record<keyof typeof procs, number[]> = { off: [], on: [] };
  const ratios: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = Object.entries(procs) as Array<[keyof typeof procs, (typeof procs)['on']]>;
    for (const [name, p] of round % 2 === 0 ? order : order.reverse()) {
      const pid = p.child.proc.pid ?? 0;
      const before = cpuSeconds(pid) ?? 0;
      const r = await runLoad({
        url: p.url,
        path,
        connections: 10,
        duration: Number(values.duration),
        rate: Number(values.rate),
      });
      us[name].push((((cpuSeconds(pid) ?? 0) - before) / Math.max(r.total, 1)) * 1e6);
    }
    ratios.push(us.on.at(-1)! / us.off.at(-1)!);
  }
  const fmt = (a: readonly number[]): string => a.map((v) => v.toFixed(1)).join(', ');
  process.stdout.write(
    [
      `${values.rounds} rounds, ${values.rate} req/s offered for ${values.duration} s each, 10 connections`,
      `memory hit, tracing off, CPU µs/req: ${fmt(us.off)}`,
      `memory hit, tracing on (parentbased_traceidratio 0.01), CPU µs/req: ${fmt(us.on)}`,
      `OTLP exports received: ${exports}`,
      `ratio on / off per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
      `median ratio on / off: ${median(ratios).toFixed(2)} (target <= 1.1), ` +
        `range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
      '',
    ].join('\n'),
  );
  sink.close();
  await stopAll();
}

void main();
