/**
 * nginx as a plain round-robin balancer in front of N proxies (no cache, no
 * retries to another backend): the front door of the fleet bench (r); or, with
 * `recipe`, the settings docs/operations.md ships for a rolling restart (a
 * refused or closed connection and a 5xx retried on another replica, a replica
 * excluded only after 3 failures for 2 s): the rolling-restart bench (l).
 * Rendered into a temp prefix and run in the foreground as a child process.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NGINX_BIN } from './nginx.js';
import { spawnChild, waitForHttp, type Child } from './proc.js';

export interface Balancer {
  url: string;
  child: Child;
  close(): Promise<void>;
}

/** The rolling-restart recipe of docs/operations.md: per server, then in the location. */
export const RECIPE_SERVER = 'max_fails=3 fail_timeout=2s';
export const RECIPE_LOCATION = [
  'proxy_connect_timeout 1s;',
  'proxy_next_upstream error timeout http_502 http_503 http_504;',
  'proxy_next_upstream_tries 3;',
  'proxy_next_upstream_timeout 5s;',
];

function conf(prefix: string, port: number, backends: readonly string[], recipe: boolean): string {
  const extra = recipe ? ` ${RECIPE_SERVER}` : '';
  const servers = backends.map((b) => `    server ${new URL(b).host}${extra};`).join('\n');
  const retries = recipe ? RECIPE_LOCATION.map((l) => `      ${l}`).join('\n') : '      proxy_next_upstream off;';
  return `${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
master_process on;
worker_processes 1;
error_log ${prefix}/error.log warn;
pid ${prefix}/nginx.pid;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy_temp;
  fastcgi_temp_path ${prefix}/fastcgi_temp;
  uwsgi_temp_path ${prefix}/uwsgi_temp;
  scgi_temp_path ${prefix}/scgi_temp;
  keepalive_requests 1000000;
  upstream fleet {
${servers}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
${retries}
      proxy_read_timeout 30s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** Listens on `port` (chosen by the caller, so the replicas' PUBLIC_BASE_URL can name it before it starts). */
export async function startBalancer(port: number, backends: readonly string[], recipe = false): Promise<Balancer> {
  if (NGINX_BIN === null) throw new Error('nginx not installed');
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const prefix = mkdtempSync(join(base, 'chainproxy-balancer-'));
  for (const d of ['client_body', 'proxy_temp', 'fastcgi_temp', 'uwsgi_temp', 'scgi_temp'])
    mkdirSync(join(prefix, d), { recursive: true });
  const file = join(prefix, 'nginx.conf');
  writeFileSync(file, conf(prefix, port, backends, recipe));
  const child = spawnChild('balancer', NGINX_BIN, ['-p', prefix, '-c', file, '-e', join(prefix, 'error.log')]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, child);
  return { url, child, close: () => child.stop() };
}
