/**
 * The fleet's member list as metrics (read at scrape time from the last
 * heartbeat, src/fleet/members.ts); no series without Redis:
 *
 *   chainproxy_fleet_members              replicas seen in the last heartbeat, this one included
 *   chainproxy_fleet_namespace_mismatch   1 when some member's PUBLIC_BASE_URL namespace differs from this replica's
 */
import type { Registry } from 'prom-client';
import { CallbackGauge } from '../metrics/collectors.js';
import { METRIC_PREFIX } from '../metrics/prometheus.js';
import type { MembersView } from './members.js';

export function registerMemberMetrics(registry: Registry, view: () => MembersView | null): void {
  const one = (value: (v: MembersView) => number) => () => {
    const v = view();
    return v === null || v.checkedAgoMs === null ? [] : [{ labels: {}, value: value(v) }];
  };
  new CallbackGauge(
    `${METRIC_PREFIX}fleet_members`,
    'Replicas of the fleet (sharing REDIS_URL and REDIS_KEY_PREFIX) seen in the last heartbeat, this one included.',
    one((v) => v.members.length),
  ).register(registry);
  new CallbackGauge(
    `${METRIC_PREFIX}fleet_namespace_mismatch`,
    '1 when a member of the fleet has another PUBLIC_BASE_URL than this replica: ' +
      'they share no cached entries (each fetches for itself). 0 when all agree.',
    one((v) => (v.namespaceMismatch ? 1 : 0)),
  ).register(registry);
}
