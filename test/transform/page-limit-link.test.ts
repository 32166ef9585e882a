/**
 * A `next` link never points past the highest page a request may ask: the
 * last page (page=10000000) answers `next: null`, not a link the proxy would
 * refuse with 400; the page before it keeps its link, and it is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, fixture, get, PUBLIC, queryOf, routes, sendJson, startEnv, type Env } from '../helpers/proxy-kit.js';

/** tx/list answering any page, with the upstream's own next/previous links around it. */
function pagedTxList(): ReturnType<typeof routes> {
  const base = JSON.parse(fixture('tx/list').body) as { data: Record<string, unknown> };
  return routes({
    'tx/list': (req, res) => {
      const page = Number(queryOf(req).get('page') ?? '1');
      const link = (p: number) => `http://data.nebulas.io/tx/list?page=${p}&page_size=2`;
      const body = {
        ...base,
        data: { ...base.data, next: link(page + 1), previous: page > 1 ? link(page - 1) : null },
      };
      sendJson(res, 200, JSON.stringify(body));
    },
  });
}

describe('next link at the page limit', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ handler: pagedTxList() });
  });
  afterAll(async () => {
    await env.close();
  });

  it('the last page a request may ask has no next link; its previous link is kept', async () => {
    const g = await get(env.base, '/tx/list?page=10000000&page_size=2');
    expect(g.status).toBe(200);
    const data = envelope(g).data as { next: unknown; previous: unknown };
    expect(data.next).toBeNull();
    expect(data.previous).toBe(`${PUBLIC}/tx/list?page=9999999&page_size=2`);
  });

  it('the page before it links to the last page, which is served', async () => {
    const g = await get(env.base, '/tx/list?page=9999999&page_size=2');
    const next = (envelope(g).data as { next: string }).next;
    expect(next).toBe(`${PUBLIC}/tx/list?page=10000000&page_size=2`);
    const followed = await get(env.base, next.slice(PUBLIC.length));
    expect(followed.status).toBe(200);
  });
});
