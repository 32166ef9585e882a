/** The start-up warning rule: REDIS_URL with the default PUBLIC_BASE_URL (http://localhost:$PORT), and only then. */
import { describe, expect, it } from 'vitest';
import { defaultBaseUrlWarning } from '../../src/startup/shared-namespace.js';

describe('defaultBaseUrlWarning', () => {
  it('warns when a fleet keeps the default base URL, naming it', () => {
    const w = defaultBaseUrlWarning({ redisUrl: 'redis://r:6379', publicBaseUrl: 'http://localhost:8081', port: 8081 });
    expect(w).toMatch(
      /^REDIS_URL is set but PUBLIC_BASE_URL is the default \(http:\/\/localhost:8081\): replicas on other ports/,
    );
    expect(w).toContain('share no cached entries');
  });

  it('says nothing without Redis, or with a base URL of its own', () => {
    expect(defaultBaseUrlWarning({ redisUrl: null, publicBaseUrl: 'http://localhost:8080', port: 8080 })).toBeNull();
    expect(
      defaultBaseUrlWarning({ redisUrl: 'redis://r:6379', publicBaseUrl: 'https://api.example.com', port: 8080 }),
    ).toBeNull();
    // Another port's default is a base URL set on purpose (shared by replicas on several ports).
    expect(
      defaultBaseUrlWarning({ redisUrl: 'redis://r:6379', publicBaseUrl: 'http://localhost:8080', port: 8081 }),
    ).toBeNull();
  });
});
