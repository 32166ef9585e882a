/** The path registry knows every path the routes serve, under the names their modules export. */
import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { DASHBOARD_PATHS } from '../../src/dashboard/routes.js';
import { PathRegistry, RESERVED_PATHS } from '../../src/catalogue/paths.js';
import { STREAM_PATH } from '../../src/stream/index.js';

describe('path registry', () => {
  const registry = new PathRegistry(ENDPOINT_NAMES, ['home']);

  it('holds the stream and the dashboard under the paths their modules serve', () => {
    expect(registry.rule(STREAM_PATH)).toMatchObject({ methods: ['GET'], operator: null });
    for (const p of DASHBOARD_PATHS) expect(registry.rule(p), p).toMatchObject({ operator: 'admin', unlimited: true });
  });

  it('reserves every path it serves from passthrough', () => {
    for (const p of registry.paths())
      expect(
        RESERVED_PATHS.some((r) => p === r || p.startsWith(`${r}/`)),
        p,
      ).toBe(true);
  });

  it('knows nothing else', () => {
    expect(registry.rule('/pages/nope')).toBeUndefined();
    expect(registry.rule('/block/max/')).toBeUndefined();
  });
});
