/**
 * Fault injection for API requests (never the /_sim/ control plane).
 * errorRate selection is deterministic: request n (counting API requests since the last
 * setFaults) faults when floor((n+1)*rate) > floor(n*rate); rate 1 ⇒ every request,
 * 0.5 ⇒ every second request, 0.1 ⇒ one in ten.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { errorBody } from './render.js';

export type FaultKind = 'http500' | 'http502html' | 'malformed' | 'truncated' | 'reset' | 'hang';
const FAULT_KINDS: readonly FaultKind[] = ['http500', 'http502html', 'malformed', 'truncated', 'reset', 'hang'];

export interface FaultConfig {
  /** added latency per API request, ms */
  latencyMs?: number;
  /** extra random latency in [0, jitterMs) */
  jitterMs?: number;
  /** fraction of API requests that fail with `kind` (0..1) */
  errorRate?: number;
  /** failure mode; default http500 */
  kind?: FaultKind;
  /** freeze the head (lagging backend); false or absent unfreezes */
  freeze?: boolean;
}

/** Validates a JSON body into a FaultConfig; returns an error message on bad input. */
export function parseFaultConfig(body: unknown): FaultConfig | string {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  const out: FaultConfig = {};
  for (const [k, v] of Object.entries(b)) {
    if (k === 'latencyMs' || k === 'jitterMs') {
      if (typeof v !== 'number' || !(v >= 0) || v > 600_000) return k + ' must be a number in 0..600000';
      out[k] = v;
    } else if (k === 'errorRate') {
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) return 'errorRate must be a number in 0..1';
      out.errorRate = v;
    } else if (k === 'kind') {
      if (typeof v !== 'string' || !FAULT_KINDS.includes(v as FaultKind))
        return 'kind must be one of ' + FAULT_KINDS.join(', ');
      out.kind = v as FaultKind;
    } else if (k === 'freeze') {
      if (typeof v !== 'boolean') return 'freeze must be a boolean';
      out.freeze = v;
    } else return 'unknown field: ' + k;
  }
  return out;
}

const HTML_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
  '<hr><center>nginx/1.14.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n';

export class Faults {
  private cfg: FaultConfig = {};
  private n = 0;
  private readonly hung = new Set<Socket>();
  injected = 0;

  set(cfg: FaultConfig): void {
    this.cfg = { ...cfg };
    this.n = 0;
  }

  get(): FaultConfig {
    return { ...this.cfg };
  }

  /** Delay to add to the next API request, ms. */
  delay(): number {
    const { latencyMs = 0, jitterMs = 0 } = this.cfg;
    return latencyMs + (jitterMs > 0 ? Math.random() * jitterMs : 0);
  }

  /** Fault kind for the next API request, if it is to fail. */
  pick(): FaultKind | undefined {
    const rate = this.cfg.errorRate ?? 0;
    const n = this.n++;
    if (rate > 0 && Math.floor((n + 1) * rate) > Math.floor(n * rate)) {
      this.injected++;
      return this.cfg.kind ?? 'http500';
    }
    return undefined;
  }

  /** Answers (or deliberately fails to answer) the request with the given fault. */
  apply(kind: FaultKind, req: FastifyRequest, reply: FastifyReply, body: string): void {
    switch (kind) {
      case 'http500':
        void reply.code(500).type('application/json; charset=utf-8').send(errorBody(500, 'internal server error'));
        return;
      case 'http502html':
        void reply.code(502).type('text/html').send(HTML_502);
        return;
      case 'malformed':
        void reply
          .code(200)
          .type('application/json; charset=utf-8')
          .send('{"code":0,"msg":"success","data":{"list":[{"tx_hash":,}');
        return;
      default:
        break;
    }
    reply.hijack();
    const socket = req.raw.socket;
    if (kind === 'truncated') {
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.write(body.slice(0, Math.max(1, Math.floor(body.length / 2))), () => socket.destroy());
    } else if (kind === 'reset') {
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    } else {
      this.hung.add(socket);
      socket.once('close', () => this.hung.delete(socket));
    }
  }

  /** Destroys sockets of hung requests. */
  releaseHung(): void {
    for (const s of this.hung) s.destroy();
    this.hung.clear();
  }
}
