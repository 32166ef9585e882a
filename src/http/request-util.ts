/** Small helpers shared by the request handlers (API, pages, batch). */
import { ProxyError } from '../errors/catalog.js';

/** The raw query string of a request URL ('' when there is none), parsed by canonicalize. */
export function rawQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** Rejects with REQUEST_TIMEOUT (504) when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProxyError('REQUEST_TIMEOUT')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
