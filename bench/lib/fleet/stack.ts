/**
 * One fleet of the rolling-restart bench (l): its own recording wrapper in front
 * of the shared upstream (so its upstream requests are counted apart), its own
 * redis-server, N chainproxy child processes sharing it, and nginx in front
 * (the rolling-restart recipe, or the plain balancer). A replica can be
 * restarted in place: SIGTERM, its exit, a new process on the same port, its
 * /readyz 200.
 */
import type { ChildProcess } from 'node:child_process';
import { startBalancer } from '../balancer.js';
import { freePort, waitForHttp } from '../proc.js';
import { startProxyProc, type ProxyProc } from '../proxy.js';
import { startRedis } from '../redis.js';
import { startRecorder, type Recorder } from '../oracle/recorder.js';

/** One restart's moments (Date.now()). */
export interface Restarted {
  /** Index of the replica in its fleet. */
  replica: number;
  /** The replica's address as the balancer names it (host:port). */
  upstream: string;
  sigterm: number;
  exited: number;
  ready: number;
}

export interface Stack {
  name: string;
  url: string;
  recorder: Recorder;
  replicas: number;
  /** Replica i's address as the balancer names it (host:port). */
  address(i: number): string;
  restart(i: number): Promise<Restarted>;
  close(): Promise<void>;
}

export interface StackOptions {
  name: string;
  /** The upstream every fleet shares (the lockstep chain's). */
  upstream: string;
  replicas: number;
  /** The balancer of the recipe (retries on another replica), else plain round-robin. */
  recipe: boolean;
  /** Extra settings of every replica. */
  env: Record<string, string>;
}

/** Resolves when the process has exited (SIGKILL after `graceMs`). */
function stopGracefully(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

export async function startStack(o: StackOptions): Promise<Stack> {
  const recorder = await startRecorder(o.upstream);
  const redis = await startRedis();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const ports: number[] = [];
  const proxies: ProxyProc[] = [];
  const envOf = (p: number): Record<string, string> => ({
    ...o.env,
    REDIS_URL: redis.url,
    PUBLIC_BASE_URL: url,
    PORT: String(p),
  });
  const closeAll = async (): Promise<void> => {
    await Promise.all(proxies.map((p) => p.close()));
    await redis.close();
    await recorder.close();
  };
  try {
    for (let i = 0; i < o.replicas; i++) {
      ports.push(await freePort());
      proxies.push(await startProxyProc([recorder.url], envOf(ports[i]!), `${o.name}-r${i}`));
    }
    const balancer = await startBalancer(
      port,
      proxies.map((p) => p.url),
      o.recipe,
    );
    let generation = 0;
    const address = (i: number): string => `127.0.0.1:${ports[i]!}`;
    return {
      name: o.name,
      url,
      recorder,
      replicas: o.replicas,
      address,
      restart: async (i) => {
        const sigterm = Date.now();
        await stopGracefully(proxies[i]!.child.proc, 60_000);
        const exited = Date.now();
        const next = await startProxyProc(
          [recorder.url],
          envOf(ports[i]!),
          `${o.name}-r${i}-g${++generation}`,
          120_000,
        );
        proxies[i] = next;
        await waitForHttp(`${next.url}/readyz`, next.child, 60_000);
        return { replica: i, upstream: address(i), sigterm, exited, ready: Date.now() };
      },
      close: async () => {
        await balancer.close();
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
