/**
 * Shared plumbing of the purge tests (not a test file itself): POST /purge on
 * a real socket, the envelope's data, a replica's purge status.
 */
import { request } from 'undici';
import { dataOf, get } from '../helpers/replica.js';

export interface Posted {
  status: number;
  headers: Record<string, string>;
  body: { code: number; msg: string; data: unknown };
}

/** POST `/purge?<query>` on `base` (query as given: the caller encodes). */
export async function purge(base: string, query: string, headers: Record<string, string> = {}): Promise<Posted> {
  const res = await request(`${base}/purge${query === '' ? '' : `?${query}`}`, { method: 'POST', headers });
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers: flat, body: (await res.body.json()) as Posted['body'] };
}

/** The answer's data of a successful purge. */
export interface PurgeData {
  kind: string;
  target: string;
  mode: string;
  at: number;
  purged: number;
  memory: number;
  redis: number;
  reach: string;
  fleet: { stored: boolean; published: boolean } | null;
}

export async function purged(base: string, query: string): Promise<PurgeData> {
  const r = await purge(base, query);
  if (r.status !== 200) throw new Error(`purge ${query}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as PurgeData;
}

export interface PurgeStatus {
  marks: number;
  here: number;
  fleet: number;
  last: { kind: string; target: string; mode: string; origin: string; entries: number } | null;
}

/** `cache.purge` of GET /status. */
export async function purgeStatus(base: string): Promise<PurgeStatus> {
  const cache = dataOf((await get(base, '/status')).text)['cache'] as Record<string, unknown>;
  return cache['purge'] as PurgeStatus;
}

/** `key=<request>` percent-encoded. */
export const keyQuery = (req: string): string => `key=${encodeURIComponent(req)}`;
