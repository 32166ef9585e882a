/**
 * The connection caps, kept here rather than by Node's `server.maxConnections`
 * (which, at the cap, refuses whatever the held connections are doing, so one
 * address holding idle keep-alive connections locks everyone else out):
 *
 * - MAX_CONNECTIONS_PER_CLIENT: one socket address holds at most this many
 *   connections; past it, its oldest idle connection is closed for the new
 *   one, or the new one is closed at once when all of them are busy. Peers in
 *   TRUST_PROXY (balancers, which carry many clients) are exempt.
 * - MAX_CONNECTIONS: at the cap, the oldest idle connection of any client is
 *   closed for the new one; only when every held connection is busy is the
 *   new one closed at once, without an answer.
 *
 * Idle: no request in flight (between keep-alive requests, or none sent yet).
 * Nothing runs per request: a connection's state is read (Node's current
 * response on the socket) only when a cap is reached.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Registry } from 'prom-client';
import { AddressList } from '../common/address-list.js';
import { counter } from '../metrics/declare.js';

/** Why a connection was closed by the caps. */
type Shed = 'idle' | 'cap' | 'client';
const SHED: readonly Shed[] = ['idle', 'cap', 'client'];

/** chainproxy_connections_shed_total{reason}, every series from the start. */
export function registerConnectionMetrics(registry: Registry): (reason: Shed) => void {
  const shed = counter(registry, 'connections_shed_total', { start: SHED.map((reason) => ({ reason })) });
  return (reason) => shed.inc({ reason });
}

export interface ConnectionLimits {
  /** 0: no cap. */
  maxConnections: number;
  /** 0: no limit. */
  maxConnectionsPerClient: number;
}

/** No request in flight on the socket (Node sets its current response there while one is). */
function idle(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage == null;
}

/** Closes the oldest idle socket of `sockets` (oldest first); false when all are busy. */
function closeOldestIdle(sockets: Iterable<Socket>, except: Socket, count: (reason: Shed) => void): boolean {
  for (const s of sockets) {
    if (s === except || !idle(s)) continue;
    s.destroy();
    count('idle');
    return true;
  }
  return false;
}

export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  trustProxy: readonly string[],
  count: (reason: Shed) => void,
): void {
  const { maxConnections: cap, maxConnectionsPerClient: perClient } = limits;
  if (cap === 0 && perClient === 0) return;
  const trusted = new AddressList(trustProxy);
  /** Every held connection, oldest first. */
  const held = new Set<Socket>();
  /** Per socket address (untrusted peers only), oldest first. */
  const byClient = new Map<string, Set<Socket>>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const mine = perClient > 0 && !trusted.has(address) ? (byClient.get(address) ?? new Set<Socket>()) : null;
    if (mine !== null && mine.size >= perClient && !closeOldestIdle(mine, socket, count)) {
      socket.destroy();
      count('client');
      return;
    }
    if (cap > 0 && held.size >= cap && !closeOldestIdle(held, socket, count)) {
      socket.destroy();
      count('cap');
      return;
    }
    held.add(socket);
    if (mine !== null) {
      mine.add(socket);
      byClient.set(address, mine);
    }
    socket.once('close', () => {
      held.delete(socket);
      if (mine === null) return;
      mine.delete(socket);
      if (mine.size === 0) byClient.delete(address);
    });
  });
}
