/**
 * The cause and hint of a failed probe, for answers that arrived:
 * what an operator can act on, and nothing the configuration refuses.
 */
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/errors/catalog.js';
import { diagnose, diagnosisLine } from '../../src/upstream/diagnose.js';

const answered = (status: number): ProxyError =>
  new ProxyError('UPSTREAM_BAD_RESPONSE', undefined, { upstreamStatus: status, detail: `HTTP ${status}` });

describe('diagnose, an answer arrived', () => {
  it(
    '401 and 403: the upstream refuses this client, ' +
      'and the hint does not ask for credentials in the URL (UPSTREAM_URLS refuses them)',
    () => {
      for (const status of [401, 403]) {
        const line = diagnosisLine(diagnose('http://backend:8080', answered(status)));
        expect(line).toContain(`HTTP ${status}: the upstream refuses this client`);
        expect(line).not.toMatch(/user:password|credentials go in the URL/);
        expect(line).toContain('allow this proxy');
      }
    },
  );

  it('404: the wrong path prefix, with the URL probed', () => {
    expect(diagnosisLine(diagnose('http://backend:8080/v1', answered(404)))).toBe(
      'GET http://backend:8080/v1/block/max failed: HTTP 404 for http://backend:8080/v1/block/max. Hint: wrong ' +
        'path prefix? UPSTREAM_URLS is the base the endpoints sit under: <base>/block/max must answer the height.',
    );
  });

  it('a hint that is a question ends with its question mark alone', () => {
    const line = diagnosisLine(diagnose('http://backend:8080', answered(200)));
    expect(line).toMatch(/wrong path prefix or port\?$/);
  });
});
