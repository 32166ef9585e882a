/**
 * Tracing's cost on the hit path: CPU time per request (utime + stime from
 * /proc) of a memory hit (a cached final `block/detail`, answered before the
 * router) on a proxy with tracing off and one exporting over OTLP/HTTP to a
 * sink run here, sampling `parentbased_traceidratio` at 0.01, at the same
 * offered load, in interleaved rounds. Target: on <= 1.1 x off (median ratio).
 * `--control` adds a second proxy with tracing off, measured in the same
 * rounds: its ratio to the first (an A/A pair) is the run's own noise floor.
 *
 *   npx tsx bench/tracing-hit.ts [--rounds N] [--rate R] [--duration S] [--control]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { median } from './lib/context.js';
import { cpuSeconds, stopAll } from './lib/proc.js';
import { startProxyProc, type ProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '4' },
    control: { type: 'boolean', default: false },
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
  const procs: Record<string, ProxyProc> = {
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
  if (values.control) procs['control'] = await startProxyProc([], common, 'control');
  const path = '/block/detail?h=1';
  for (const p of Object.values(procs)) {
    await runLoad({ url: p.url, path, connections: 10, duration: 2 });
    const r = await fetch(`${p.url}${path}`);
    await r.arrayBuffer();
    if (r.headers.get('x-cache') !== 'HIT') throw new Error(`${path}: not a hit (${r.headers.get('x-cache')})`);
  }
  const us: Record<string, number[]> = Object.fromEntries(Object.keys(procs).map((k) => [k, []]));
  const ratios: number[] = [];
  const control: number[] = [];
  const entries = Object.entries(procs);
  for (let round = 0; round < Number(values.rounds); round++) {
    // Each proxy leads in turn (with two: alternating).
    for (const [name, p] of entries.map((_, k) => entries[(k + round) % entries.length]!)) {
      const pid = p.child.proc.pid ?? 0;
      const before = cpuSeconds(pid) ?? 0;
      const r = await runLoad({
        url: p.url,
        path,
        connections: 10,
        duration: Number(values.duration),
        rate: Number(values.rate),
      });
      us[name]!.push((((cpuSeconds(pid) ?? 0) - before) / Math.max(r.total, 1)) * 1e6);
    }
    ratios.push(us['on']!.at(-1)! / us['off']!.at(-1)!);
    if (values.control) control.push(us['control']!.at(-1)! / us['off']!.at(-1)!);
  }
  const spread = (a: readonly number[]): string =>
    `${median(a).toFixed(2)}, range ${Math.min(...a).toFixed(2)}-${Math.max(...a).toFixed(2)}`;
  const fmt = (a: readonly number[]): string => a.map((v) => v.toFixed(1)).join(', ');
  process.stdout.write(
    [
      `${values.rounds} rounds, ${values.rate} req/s offered for ${values.duration} s each, 10 connections`,
      `memory hit, tracing off, CPU µs/req: ${fmt(us['off']!)}`,
      `memory hit, tracing on (parentbased_traceidratio 0.01), CPU µs/req: ${fmt(us['on']!)}`,
      ...(values.control ? [`memory hit, control (tracing off), CPU µs/req: ${fmt(us['control']!)}`] : []),
      `OTLP exports received: ${exports}`,
      `ratio on / off per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
      `median ratio on / off: ${spread(ratios)} (target <= 1.1)`,
      ...(values.control
        ? [
            `ratio control / off per round: ${control.map((r) => r.toFixed(2)).join(', ')}`,
            `median ratio control / off (the noise floor): ${spread(control)}`,
          ]
        : []),
      '',
    ].join('\n'),
  );
  sink.close();
  await stopAll();
}

void main();
