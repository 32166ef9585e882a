/**
 * The fleet's member list as metrics (read at scrape time from the last
 * heartbeat, src/fleet/members.ts); no series without Redis:
 *
 *   chainproxy_fleet_members              replicas seen in the last heartbeat, this one included
 *   chainproxy_fleet_namespace_mismatch   1 when some member's PUBLIC_BASE_URL namespace differs from this replica's
 */
import type { Registry } from 'prom-client';
import { callbackGauge } from '../metrics/declare.js';
import type { MembersView } from './members.js';

export function registerMemberMetrics(registry: Registry, view: () => MembersView | null): void {
  const one = (value: (v: MembersView) => number) => () => {
    const v = view();
    return v === null || v.checkedAgoMs === null ? [] : [{ labels: {}, value: value(v) }];
  };
  callbackGauge(
    registry,
    'fleet_members',
    one((v) => v.members.length),
  );
  callbackGauge(
    registry,
    'fleet_namespace_mismatch',
    one((v) => (v.namespaceMismatch ? 1 : 0)),
  );
}
