/**
 * A bare @fastify/http-proxy server, the reference for chainproxy's passthrough:
 *   BARE_PORT=… BARE_UPSTREAM=http://… node --import tsx bench/lib/bare-proxy-server.ts
 * Forwards /api/* with the library's defaults and nothing else.
 */
import httpProxy from '@fastify/http-proxy';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(httpProxy, {
  upstream: process.env.BARE_UPSTREAM ?? '',
  prefix: '/api',
  rewritePrefix: '/api',
  disableRequestLogging: true,
  undici: { connections: 32 },
});
await app.listen({ port: Number(process.env.BARE_PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
