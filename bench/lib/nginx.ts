/**
 * nginx proxy_cache peer: renders bench/peers/nginx.conf.template into a temp
 * prefix directory and runs nginx in the foreground as a child process.
 *
 * TTLs per location come from the proxy's own default policy table
 * (src/catalogue/policies.ts). nginx cannot look at the content (final or not,
 * pending or confirmed), so each endpoint gets the shortest TTL that is safe
 * for every answer of that endpoint: min(ttl, volatile), rounded up to whole
 * seconds (nginx's granularity), at least 1 s; 404s get the negative TTL.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
  openSync,
  readSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_POLICIES } from '../../src/catalogue/policies.js';
import { ROOT, freePort, sleep, spawnChild, waitForHttp, type Child } from './proc.js';

export const NGINX_BIN =
  ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((p) =>
    existsSync(p),
  ) ?? null;

export interface NginxProc {
  url: string;
  child: Child;
  /** Cache statuses logged since `mark()`. */
  mark(): Promise<void>;
  counts(): Promise<Record<string, number>>;
  ttlTable: Array<{ endpoint: string; ttlS: number; negS: number }>;
  close(): Promise<void>;
}

const secs = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

function nginxTtls(): Array<{ endpoint: string; ttlS: number; negS: number }> {
  return Object.entries(DEFAULT_POLICIES).map(([endpoint, p]) => ({
    endpoint,
    ttlS: secs(Math.min(p.ttlMs, p.volatileTtlMs)),
    negS: secs(p.negativeTtlMs),
  }));
}

export async function startNginx(upstreamUrl: string): Promise<NginxProc> {
  if (NGINX_BIN === null) throw new Error('nginx not installed');
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const prefix = mkdtempSync(join(base, 'chainproxy-nginx-'));
  for (const d of ['cache', 'client_body', 'proxy_temp', 'fastcgi_temp', 'uwsgi_temp', 'scgi_temp', 'logs'])
    mkdirSync(join(prefix, d), { recursive: true });
  const port = await freePort();
  const ttlTable = nginxTtls();
  const locations = ttlTable
    .map(
      ({ endpoint, ttlS, negS }) =>
        `    location = /${endpoint} {\n      proxy_cache_valid 200 ${ttlS}s;\n      ` +
        `proxy_cache_valid 404 ${negS}s;\n      proxy_pass http://origin;\n    }`,
    )
    .join('\n');
  const conf = readFileSync(join(ROOT, 'bench/peers/nginx.conf.template'), 'utf8')
    .replaceAll('{{USER}}', process.getuid?.() === 0 ? 'user root;' : '')
    .replaceAll('{{PREFIX}}', prefix)
    .replaceAll('{{PORT}}', String(port))
    .replaceAll('{{UPSTREAM}}', new URL(upstreamUrl).host)
    .replace('{{LOCATIONS}}', locations);
  const confFile = join(prefix, 'nginx.conf');
  writeFileSync(confFile, conf);
  const child = spawnChild('nginx', NGINX_BIN, ['-p', prefix, '-c', confFile, '-e', join(prefix, 'error.log')]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/block/max`, child);
  const log = join(prefix, 'access.log');
  let offset = 0;
  const size = (): number => (existsSync(log) ? statSync(log).size : 0);
  return {
    url,
    child,
    ttlTable,
    mark: async () => {
      await sleep(300); // buffered access log: flush=200ms
      offset = size();
    },
    counts: async () => {
      await sleep(300);
      const end = size();
      const out: Record<string, number> = {};
      if (end <= offset) return out;
      const buf = Buffer.alloc(end - offset);
      const fd = openSync(log, 'r');
      readSync(fd, buf, 0, buf.length, offset);
      closeSync(fd);
      for (const line of buf.toString().split('\n')) if (line !== '') out[line] = (out[line] ?? 0) + 1;
      return out;
    },
    close: () => child.stop(),
  };
}

/** Answered from the cache (fresh, stale or while updating) / all. */
export function nginxHitRatio(c: Record<string, number>): number | null {
  let all = 0;
  let hits = 0;
  for (const [k, v] of Object.entries(c)) {
    all += v;
    if (k === 'HIT' || k === 'STALE' || k === 'UPDATING' || k === 'REVALIDATED') hits += v;
  }
  return all === 0 ? null : hits / all;
}
