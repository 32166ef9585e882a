/** Launcher of bench/lib/bare-server.ts with the bytes and headers of one proxy answer. */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_TSX, freePort, spawnChild, waitForHttp, type Child } from './proc.js';

/** Headers Fastify/Node set themselves; everything else is copied from the proxy's answer. */
const OWN = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function startBare(
  body: Buffer,
  proxyHeaders: Record<string, string>,
): Promise<{ url: string; child: Child; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-bare-'));
  const file = join(dir, 'body.bin');
  writeFileSync(file, body);
  const headers = Object.fromEntries(Object.entries(proxyHeaders).filter(([k]) => !OWN.has(k.toLowerCase())));
  const port = await freePort();
  const child = spawnChild('bare', NODE_TSX[0], [...NODE_TSX.slice(1), 'bench/lib/bare-server.ts'], {
    BARE_PORT: String(port),
    BARE_BODY_FILE: file,
    BARE_HEADERS: JSON.stringify(headers),
    NODE_ENV: 'production',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, child);
  return { url, child, close: () => child.stop() };
}
