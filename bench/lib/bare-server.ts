/**
 * The bare Fastify route of scenario (a), run as its own process:
 *   BARE_PORT=… BARE_BODY_FILE=body.bin BARE_HEADERS='{"etag":"…"}' node --import tsx bench/lib/bare-server.ts
 * Answers every GET with the same bytes and headers the proxy sends for a hit,
 * doing no work beyond what Fastify itself does. The lower bound of the proxy's hit path.
 */
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.env.BARE_BODY_FILE ?? '');
const headers = JSON.parse(process.env.BARE_HEADERS ?? '{}') as Record<string, string>;
const app = Fastify({ logger: false });
app.get('/*', (_req, reply) => {
  reply.headers(headers).send(body);
});
await app.listen({ port: Number(process.env.BARE_PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
