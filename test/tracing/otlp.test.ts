/**
 * OpenTelemetry tracing on a real process, configured by the OTEL_* variables
 * alone, exporting to an OTLP/HTTP receiver the test runs: a MISS and two
 * HITs (the second answered before the router) asked with a client
 * `traceparent` give SERVER spans (route, cache outcome) in the client's
 * trace, the MISS a CLIENT span for its upstream call, and the
 * upstream receives the `traceparent` of that CLIENT span. Without an
 * endpoint nothing is traced: no `traceparent` reaches the upstream.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { CLIENT, SERVER, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { listening, startProc } from '../process/kit.js';

const ASKED = '/tx/list?page=1&page_size=2';

let fake: FakeUpstream | null = null;
let receiver: OtlpReceiver | null = null;
let redis: RedisServer | null = null;
afterEach(async () => {
  await redis?.stop();
  redis = null;
  await fake?.close();
  await receiver?.close();
  fake = null;
  receiver = null;
});

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

async function ask(url: string, traceparent?: string): Promise<string> {
  const res = await request(`${url}${ASKED}`, { headers: traceparent === undefined ? {} : { traceparent } });
  await res.body.text();
  expect(res.statusCode).toBe(200);
  return String(res.headers['x-cache']);
}

/** The upstream's requests for ASKED (the head watcher, probes and the block reader ask other URLs). */
const askedAtUpstream = (f: FakeUpstream) => f.requests.filter((r) => r.url === ASKED);

async function started(env: Record<string, string>): Promise<{ url: string; upstream: FakeUpstream }> {
  const upstream = await startFakeUpstream();
  fake = upstream;
  const p = startProc({ UPSTREAM_URLS: upstream.url, ...env });
  return { url: String((await listening(p))['url']), upstream };
}

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describe('OpenTelemetry tracing', { timeout: 120_000 }, () => {
  it('http/json: SERVER spans for a MISS and a HIT, a CLIENT span, traceparent at the upstream', async () => {
    const rx = await startOtlpReceiver();
    receiver = rx;
    const { url, upstream } = await started({
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'traced-proxy',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const traceId = hex(16);
    const [first, second, third] = [hex(8), hex(8), hex(8)];
    expect(await ask(url, `00-${traceId}-${first}-01`)).toBe('MISS');
    expect(await ask(url, `00-${traceId}-${second}-01`)).toBe('HIT');
    // Answered before the router (fast-hit.ts): its span is made by the epilogue.
    expect(await ask(url, `00-${traceId}-${third}-01`)).toBe('HIT');

    const ours = (): ReceivedSpan[] => rx.spans().filter((s) => s.traceId === traceId);
    await waitFor(() => ours().filter((s) => s.kind === SERVER).length === 3, 30_000, 'three SERVER spans');
    const servers = ours().filter((s) => s.kind === SERVER);
    const miss = servers.find((s) => s.parentSpanId === first);
    const hit = servers.find((s) => s.parentSpanId === second);
    expect(miss?.attributes).toMatchObject({ 'chainproxy.cache': 'MISS', 'http.route': 'tx/list' });
    expect(miss?.attributes['http.response.status_code']).toBe(200);
    expect(hit?.attributes).toMatchObject({ 'chainproxy.cache': 'HIT', 'http.route': 'tx/list' });
    const fast = servers.find((s) => s.parentSpanId === third);
    expect(fast?.attributes).toMatchObject({
      'chainproxy.cache': 'HIT',
      'http.route': 'tx/list',
      'http.response.status_code': 200,
    });
    expect(miss?.service).toBe('traced-proxy');
    expect(miss?.name).toBe('GET tx/list');

    await waitFor(() => ours().some((s) => s.kind === CLIENT), 30_000, 'the CLIENT span');
    const clients = ours().filter((s) => s.kind === CLIENT);
    expect(clients).toHaveLength(1);
    const client = clients[0];
    expect(client?.parentSpanId).toBe(miss?.spanId);
    expect(client?.attributes['http.response.status_code']).toBe(200);

    const at = askedAtUpstream(upstream);
    expect(at).toHaveLength(1);
    expect(at[0]?.headers['traceparent']).toBe(`00-${traceId}-${client?.spanId}-01`);
  });

  it('http/protobuf (the default): spans arrive at OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', async () => {
    const rx = await startOtlpReceiver();
    receiver = rx;
    const { url, upstream } = await started({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${rx.url}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const traceId = hex(16);
    expect(await ask(url, `00-${traceId}-${hex(8)}-01`)).toBe('MISS');
    const id = Buffer.from(traceId, 'hex');
    await waitFor(() => rx.exports.some((e) => e.body.includes(id)), 30_000, 'a protobuf export with the trace');
    const e = rx.exports.find((x) => x.body.includes(id));
    expect(e?.contentType).toBe('application/x-protobuf');
    expect(askedAtUpstream(upstream)[0]?.headers['traceparent']).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  it('parentbased_traceidratio: a root decided before its span; sampled out, its context goes upstream', async () => {
    const rx = await startOtlpReceiver();
    receiver = rx;
    const ratio = (arg: string) =>
      started({
        OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: arg,
      });
    // Every root sampled: a MISS, a HIT and a HIT answered before the router, each its own trace.
    const all = await ratio('1');
    expect([await ask(all.url), await ask(all.url), await ask(all.url)]).toEqual(['MISS', 'HIT', 'HIT']);
    await waitFor(() => rx.spans().filter((s) => s.kind === SERVER).length === 3, 30_000, 'three SERVER spans');
    const servers = rx.spans().filter((s) => s.kind === SERVER);
    expect(new Set(servers.map((s) => s.traceId)).size).toBe(3);
    expect(servers.map((s) => s.attributes['chainproxy.cache']).sort()).toEqual(['HIT', 'HIT', 'MISS']);
    const miss = servers.find((s) => s.attributes['chainproxy.cache'] === 'MISS');
    expect(askedAtUpstream(all.upstream)[0]?.headers['traceparent']).toMatch(
      new RegExp(`^00-${miss?.traceId}-[0-9a-f]{16}-01$`),
    );
    await fake?.close();

    // No root sampled: nothing exported, the upstream still gets an unsampled traceparent; a sampled client's kept.
    const none = await ratio('0');
    const before = rx.spans().length;
    expect([await ask(none.url), await ask(none.url), await ask(none.url)]).toEqual(['MISS', 'HIT', 'HIT']);
    expect(askedAtUpstream(none.upstream)[0]?.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const traceId = hex(16);
    expect(await ask(none.url, `00-${traceId}-${hex(8)}-01`)).toBe('HIT');
    await waitFor(() => rx.spans().some((s) => s.traceId === traceId), 30_000, "the sampled client's span");
    expect(
      rx
        .spans()
        .slice(before)
        .map((s) => s.traceId),
    ).toEqual([traceId]);
  });

  it('off without an endpoint: other OTEL variables alone trace nothing', async () => {
    const { url, upstream } = await started({ OTEL_SERVICE_NAME: 'untraced', OTEL_TRACES_SAMPLER: 'always_on' });
    expect(await ask(url, `00-${hex(16)}-${hex(8)}-01`)).toBe('MISS');
    const at = askedAtUpstream(upstream);
    expect(at).toHaveLength(1);
    expect(at[0]?.headers['traceparent']).toBeUndefined();
  });
});

describeRedis()('OpenTelemetry tracing with Redis', { timeout: 120_000 }, () => {
  it('a Redis read is a CLIENT span of the request that asked', async () => {
    const rx = await startOtlpReceiver();
    receiver = rx;
    redis = await startRedisServer();
    const { url } = await started({
      REDIS_URL: redis.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const traceId = hex(16);
    expect(await ask(url, `00-${traceId}-${hex(8)}-01`)).toBe('MISS');
    const ours = (): ReceivedSpan[] => rx.spans().filter((s) => s.traceId === traceId);
    // The SERVER span ends after the read's (when the answer is written): it may come in a later export.
    await waitFor(
      () => ours().some((s) => s.name === 'redis GET') && ours().some((s) => s.kind === SERVER),
      30_000,
      'the Redis span and its SERVER span',
    );
    const server = ours().find((s) => s.kind === SERVER);
    const read = ours().find((s) => s.name === 'redis GET');
    expect(read?.kind).toBe(CLIENT);
    expect(read?.parentSpanId).toBe(server?.spanId);
    expect(read?.attributes).toMatchObject({ 'db.system.name': 'redis', 'db.operation.name': 'GET' });
  });
});
