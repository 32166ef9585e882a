/**
 * TLS to a plain-HTTP upstream is an upstream failure (no upstream available,
 * 502 code 5022), said in words: not an internal error with OpenSSL's text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';
import { envelope, get } from '../helpers/proxy-kit.js';

describe('https:// to a plain-HTTP upstream', () => {
  let up: FakeUpstream;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    up = await startFakeUpstream();
    proxy = await startTestProxy([up.url.replace('http://', 'https://')], {
      upstream: { maxAttempts: 1, hedgeAfterMs: 0 },
    });
  });
  afterAll(async () => {
    await proxy.close();
    await up.close();
  });

  it('a client gets the 502 upstream envelope (5022), and /status names a TLS failure in words', async () => {
    const got = await get(proxy.url, '/block/max');
    expect(got.status).toBe(502);
    expect(envelope(got).code).toBe(5022);
    let lastError = '';
    await waitFor(
      async () => {
        const s = await get(proxy.url, '/status');
        lastError = String(
          (s.json as { data: { upstreams: Array<{ lastError: string | null }> } }).data.upstreams[0]?.lastError ?? '',
        );
        return lastError !== '';
      },
      5000,
      'a recorded upstream error',
    );
    expect(lastError).toBe('UPSTREAM_UNAVAILABLE: TLS handshake failed: the server did not answer in TLS');
  });
});
