import { loadFixtures, type Fixture } from '../helpers/fake-upstream.js';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/sim/index.js';

export type { Fixture };

/** The recorded responses of the real service (test/fixtures, byte-identical copies). */
export const FIXTURES: Fixture[] = loadFixtures();

const FIXED_NOW = 1_595_157_487_445;

/** A simulator without timer, with a fixed clock and the recorded fixtures' chain time. */
export function sim(o: SimulatorOptions = {}): Promise<SimulatorHandle> {
  return startSimulator({ blockIntervalMs: 0, now: () => FIXED_NOW, startTime: 'fixture', ...o });
}

export interface Got {
  status: number;
  text: string;
  headers: Headers;
}

export async function get(base: string, pathAndQuery: string, init?: RequestInit): Promise<Got> {
  const res = await fetch(base + pathAndQuery, init);
  return { status: res.status, text: await res.text(), headers: res.headers };
}

export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

export async function getJson<T = Record<string, unknown>>(base: string, pathAndQuery: string): Promise<Envelope<T>> {
  const g = await get(base, pathAndQuery);
  if (g.status !== 200) throw new Error(`${pathAndQuery}: HTTP ${g.status} ${g.text}`);
  return JSON.parse(g.text) as Envelope<T>;
}

export async function post(base: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as unknown };
}

export interface Paged<T = Record<string, unknown>> {
  next: string | null;
  previous: string | null;
  count: number;
  total_page: number;
  current_page: number;
  list: T[];
  server_timestamp?: number;
}
