import { describe, expect, it } from 'vitest';
import { rig, streamConfig } from './kit.js';

const r = rig();

describe('heartbeat', () => {
  it('sends a comment every interval while no block arrives', async () => {
    const { proxy } = await r.start({ stream: streamConfig({ heartbeatMs: 50 }) });
    const c = await r.stream(proxy.url);
    await c.until(() => c.comments.filter((t) => t === 'heartbeat').length >= 3, 10_000, 'three heartbeats');
    expect(c.events).toHaveLength(1);
  });

  it('stays silent between events with the default 15 s interval', async () => {
    const { proxy } = await r.start();
    const c = await r.stream(proxy.url);
    await c.until(() => c.events.length === 1);
    expect(c.comments.filter((t) => t === 'heartbeat')).toHaveLength(0);
  });
});
