/**
 * One fleet of the rolling-restart bench (l): its own recording wrapper in front
 * of the shared upstream (so its upstream requests are counted apart), its own
 * redis-server, N chainproxy child processes sharing it, and nginx in front
 * (the rolling-restart recipe, or the plain balancer). With `groups` > 1 the
 * replicas are split into that many equal groups, each behind its own nginx:
 * still one fleet (one Redis, one namespace, one leader lease, the first
 * balancer's PUBLIC_BASE_URL), reached through several front doors. A replica
 * can be restarted in place: SIGTERM, its exit, a new process on the same
 * port, its /readyz 200.
 */
import type { ChildProcess } from 'node:child_process';
import { startBalancer, type Balancer } from '../balancer.js';
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
  /** One balancer per group of replicas (group g: replicas g × replicas/groups onwards). */
  urls: string[];
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
  /** Groups of replicas, each behind its own balancer (default 1). */
  groups?: number;
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
  const groups = o.groups ?? 1;
  if (o.replicas % groups !== 0) throw new Error(`${o.replicas} replicas do not split into ${groups} groups`);
  const balancerPorts = await Promise.all(Array.from({ length: groups }, () => freePort()));
  const urls = balancerPorts.map((p) => `http://127.0.0.1:${p}`);
  const url = urls[0]!;
  const ports: number[] = [];
  const proxies: ProxyProc[] = [];
  const envOf = (p: number): Record<string, string> => ({
    ...o.env,
    REDIS_URL: redis.url,
    PUBLIC_BASE_URL: url,
    PORT: String(p),
  });
  const balancers: Balancer[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(balancers.map((b) => b.close()));
    await Promise.all(proxies.map((p) => p.close()));
    await redis.close();
    await recorder.close();
  };
  try {
    for (let i = 0; i < o.replicas; i++) {
      ports.push(await freePort());
      proxies.push(await startProxyProc([recorder.url], envOf(ports[i]!), `${o.name}-r${i}`));
    }
    const size = o.replicas / groups;
    for (const [g, port] of balancerPorts.entries())
      balancers.push(
        await startBalancer(
          port,
          proxies.slice(g * size, (g + 1) * size).map((p) => p.url),
          o.recipe,
        ),
      );
    let generation = 0;
    const address = (i: number): string => `127.0.0.1:${ports[i]!}`;
    return {
      name: o.name,
      urls,
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
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
