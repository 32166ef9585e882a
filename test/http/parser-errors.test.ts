/**
 * Errors raised before any route runs (Node's HTTP parser, Fastify's router)
 * answer with the `{code,msg,data}` envelope, not Fastify's default body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, type Env } from '../helpers/proxy-kit.js';
import { parseRaw, rawConnect } from './raw.js';

describe('parser-level errors', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  const exchange = async (request: string) => parseRaw((await rawConnect(env.base, request).closed).text);

  it('headers too large: 431 envelope', async () => {
    const res = await exchange(`GET /block/max HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ code: 4310, msg: 'request headers too large', data: null });
    expect(res.headers).toContain('content-type: application/json');
  });

  it('a malformed request line: 400 envelope', async () => {
    const res = await exchange('NOT AN HTTP REQUEST\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4000, msg: 'bad request', data: null });
  });

  it('a malformed header: 400 envelope', async () => {
    const res = await exchange('GET /block/max HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 4000, data: null });
  });

  it('a malformed URL: 400 envelope', async () => {
    const res = await exchange('GET /tx/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 4000, data: null });
    expect(typeof (res.body as { msg: unknown }).msg).toBe('string');
  });
});
