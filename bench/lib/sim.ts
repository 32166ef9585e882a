/** The chain simulator as a child process (`src/sim/cli.ts`), driven through its /_sim/ control plane. */
import { NODE_TSX, freePort, getJson, spawnChild, waitForHttp, type Child } from './proc.js';

interface SimFaults {
  latencyMs?: number;
  jitterMs?: number;
  errorRate?: number;
  kind?: 'http500' | 'http502html' | 'malformed' | 'truncated' | 'reset' | 'hang';
  freeze?: boolean;
}

interface SimStats {
  requests: Record<string, number>;
  head: number;
  finalHeight: number;
}

export interface SimProc {
  url: string;
  child: Child;
  /** API requests served so far (control plane excluded). */
  total(): Promise<number>;
  stats(): Promise<SimStats>;
  head(): Promise<number>;
  setFaults(f: SimFaults): Promise<void>;
  close(): Promise<void>;
}

export async function startSim(opts: { blockIntervalMs: number; seed?: number; name?: string }): Promise<SimProc> {
  const port = await freePort();
  const child = spawnChild(opts.name ?? 'simulator', NODE_TSX[0], [
    ...NODE_TSX.slice(1),
    'src/sim/cli.ts',
    '--port',
    String(port),
    '--block-interval',
    String(opts.blockIntervalMs),
    '--seed',
    String(opts.seed ?? 1),
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/_sim/chain`, child);
  const stats = () => getJson<SimStats>(`${url}/_sim/stats`);
  return {
    url,
    child,
    stats,
    total: async () => (await stats()).requests._total ?? 0,
    head: async () => (await getJson<{ head: number }>(`${url}/_sim/chain`)).head,
    setFaults: async (f) => {
      await getJson(`${url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f),
      });
    },
    close: () => child.stop(),
  };
}
