/**
 * Tracing's cost on the hit path: CPU time per request of a memory hit (a
 * cached final `block/detail`, answered before the router) on a proxy with
 * tracing off and one exporting over OTLP/HTTP to a sink run here, sampling
 * `parentbased_traceidratio` at 0.01 (started as the launcher starts it: on
 * Node.js 22 with AsyncContextFrame), each round loading every proxy at the
 * same time with the same offered load (CPU time from the scheduler, all
 * threads: bench/lib/proc.ts). Target: on <= 1.1 x off (median ratio).
 * A second proxy with tracing off (`--no-control`: none), measured in the same
 * rounds: its ratio to the first (an A/A pair) is the run's own noise floor.
 *
 *   npx tsx bench/tracing-hit.ts [--rounds N] [--rate R] [--duration S] [--no-control]
 */
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { median } from './lib/context.js';
import { cpuSeconds, stopAll } from './lib/proc.js';
import { startOtlpSink } from './lib/otlp-sink.js';
import { startProxyProc, type ProxyProc } from './lib/proxy.js';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    rounds: { type: 'string', default: '8' },
    rate: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '6' },
    control: { type: 'boolean', default: true },
  },
});

async function main(): Promise<void> {
  const sink = await startOtlpSink();
  const common = { UPSTREAM_URLS: '', SIM_BLOCK_INTERVAL_MS: '3600000' };
  const procs: Record<string, ProxyProc> = {
    off: await startProxyProc([], common, 'off'),
    on: await startProxyProc([], { ...common, ...sink.env }, 'on'),
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
    // Every proxy under the same load at the same time: whatever the machine does meanwhile hits them alike.
    const pids = entries.map(([, p]) => p.child.proc.pid ?? 0);
    const before = pids.map((pid) => cpuSeconds(pid) ?? 0);
    const loads = await Promise.all(
      entries.map(([, p]) =>
        runLoad({ url: p.url, path, connections: 5, duration: Number(values.duration), rate: Number(values.rate) }),
      ),
    );
    entries.forEach(([name], i) => {
      const used = (cpuSeconds(pids[i]) ?? 0) - before[i]!;
      us[name]!.push((used / Math.max(loads[i]!.total, 1)) * 1e6);
    });
    ratios.push(us['on']!.at(-1)! / us['off']!.at(-1)!);
    if (values.control) control.push(us['control']!.at(-1)! / us['off']!.at(-1)!);
  }
  const spread = (a: readonly number[]): string =>
    `${median(a).toFixed(2)}, range ${Math.min(...a).toFixed(2)}-${Math.max(...a).toFixed(2)}`;
  const fmt = (a: readonly number[]): string => a.map((v) => v.toFixed(1)).join(', ');
  process.stdout.write(
    [
      `${values.rounds} rounds, ${values.rate} req/s offered to each proxy at once for ${values.duration} s, ` +
        '5 connections each',
      `memory hit, tracing off, CPU µs/req: ${fmt(us['off']!)}`,
      `memory hit, tracing on (parentbased_traceidratio 0.01), CPU µs/req: ${fmt(us['on']!)}`,
      ...(values.control ? [`memory hit, control (tracing off), CPU µs/req: ${fmt(us['control']!)}`] : []),
      `OTLP exports received: ${sink.exports()}`,
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
  await sink.close();
  await stopAll();
}

void main();
