import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { headOf } from './sse-client.js';
import { rig } from './kit.js';

const r = rig();

/** The records of the simulator's own block/list, by height. */
async function simBlocks(simUrl: string): Promise<Map<number, Record<string, unknown>>> {
  const res = await request(`${simUrl}/block/list?page=1&page_size=20`);
  const j = (await res.body.json()) as { data: { list: Record<string, unknown>[] } };
  return new Map(j.data.list.map((b) => [b['height'] as number, b]));
}

describe('GET /stream/heads', () => {
  it('is an event stream with a retry hint, CORS, and the current head at once', async () => {
    const { sim, proxy } = await r.start();
    const c = await r.stream(proxy.url);
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(c.headers['cache-control']).toBe('no-store');
    expect(c.headers['access-control-allow-origin']).toBe('*');
    await c.until(() => c.events.length === 1 && c.retry !== null, 10_000, 'the first event');
    expect(c.retry).toBe(3000);
    const head = sim.chain.head();
    expect(c.events[0]!.id).toBe(String(head));
    const data = headOf(c.events[0]!);
    expect(data.height).toBe(head);
    expect(data.final_height).toBe(head - 15);
    expect(Math.abs(data.time - Date.now())).toBeLessThan(60_000);
    expect(data.block).toEqual((await simBlocks(sim.url)).get(head));
  });

  it('sends one event per height, in order, when several blocks arrive between two probes', async () => {
    const { sim, proxy } = await r.start();
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    const h0 = sim.chain.head();
    sim.chain.advance(3);
    await c.until(() => c.events.length === 4, 10_000, 'three more events');
    expect(c.events.map((e) => e.id)).toEqual([h0, h0 + 1, h0 + 2, h0 + 3].map(String));
    const blocks = await simBlocks(sim.url);
    for (const e of c.events.slice(1)) {
      const d = headOf(e);
      expect(String(d.height)).toBe(e.id);
      expect(d.block).toEqual(blocks.get(d.height));
      expect(d.final_height).toBe(h0 + 3 - 15);
    }
    // The upstream's own bytes: a frame is exactly `id`, one `data` line, blank line.
    const raw = await request(`${proxy.url}/stream/heads`, { headers: { 'last-event-id': String(h0 + 2) } });
    const reader = raw.body[Symbol.asyncIterator]();
    let text = '';
    while (!text.includes(`id: ${h0 + 3}\n`) || !text.endsWith('\n\n')) text += String((await reader.next()).value);
    raw.body.destroy();
    expect(text).toMatch(
      new RegExp(
        `^retry: 3000\\n\\n: [^\\n]*\\n\\nid: ${h0 + 3}\\ndata: ` +
          `\\{"height":${h0 + 3},"final_height":${h0 + 3 - 15},"time":\\d+,` +
          `"block":\\{"block_hash":"[0-9a-f]+"[^\\n]*\\}\\}\\n\\n$`,
      ),
    );
  });

  it('names the heights a jump of more than 100 skips with a gap event, live and on resume', async () => {
    const { sim, proxy } = await r.start({ limits: { maxPageSize: 100 }, upstream: { headMarginBlocks: 300 } });
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    const h0 = sim.chain.head();
    sim.chain.advance(250);
    await c.until(() => c.events.length === 102, 10_000, 'the gap and the newest 100 heads');
    expect(c.events[1]).toEqual({
      type: 'gap',
      id: String(h0 + 150),
      data: JSON.stringify({ from: h0 + 1, to: h0 + 150 }),
    });
    expect(c.heights()).toEqual([h0, ...Array.from({ length: 100 }, (_, i) => h0 + 151 + i)]);
    const resumed = await r.stream(proxy.url, { lastEventId: String(h0) });
    await resumed.until(() => resumed.events.length === 101, 10_000, 'the replay');
    expect(resumed.events[0]).toEqual(c.events[1]);
    // A new subscriber's newest event is a head, never the gap.
    const fresh = await r.stream(proxy.url);
    await fresh.until(() => fresh.events.length === 1);
    expect(fresh.events[0]).toMatchObject({ type: 'message', id: String(h0 + 250) });
  });

  it('answers HEAD and POST with 405 envelopes, and a CORS preflight that allows Last-Event-ID', async () => {
    const { proxy } = await r.start();
    for (const method of ['HEAD', 'POST'] as const) {
      const res = await request(`${proxy.url}/stream/heads`, { method });
      expect(res.statusCode, method).toBe(405);
      // The Allow header must not offer the HEAD it refuses.
      expect(res.headers['allow'], method).toBe('GET, OPTIONS');
      await res.body.text();
    }
    const pre = await request(`${proxy.url}/stream/heads`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://explorer.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'last-event-id',
      },
    });
    await pre.body.text();
    expect(pre.statusCode).toBe(204);
    expect(String(pre.headers['access-control-allow-headers'])).toContain('Last-Event-ID');
    expect(pre.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
  });
});
