/** What tracing offers the places that make spans (tracing.ts; the SDK behind it: sdk.ts). */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What an upstream attempt's CLIENT span records. */
export interface ClientCall {
  upstream: string;
  /** The URL path asked (with its query). */
  path: string;
}

export interface Tracing {
  /** The router's request handler, each request inside its SERVER span (continuing an incoming `traceparent`). */
  entrance(handler: Handler): Handler;
  /**
   * An answer sent to `req` (from `started`, performance.now()): names its
   * SERVER span (route, cache outcome: HIT, MISS, STALE, ...), or, for a
   * request answered before the router (no span made at the entrance), makes
   * and ends that span now.
   */
  answered(req: IncomingMessage, route: string, cache: string, status: number, started: number): void;
  /**
   * Runs one upstream attempt in a CLIENT span (when a request's span is
   * current), `run` given the headers to send (with `traceparent`).
   */
  client<T extends { status: number }>(
    call: ClientCall,
    headers: Readonly<Record<string, string>>,
    run: (headers: Readonly<Record<string, string>>) => Promise<T>,
  ): Promise<T>;
  /** Runs one Redis read (`operation`: GET) in a CLIENT span, when a request's span is current. */
  redis<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** Exports the spans still queued. */
  shutdown(): Promise<void>;
}
