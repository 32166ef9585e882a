import { ProxyError } from '../errors/catalog.js';

const DETAIL = 'cancelled: another attempt answered first';

/** The abort reason given to the attempts that lose a hedge race. */
export function hedgeLost(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { detail: DETAIL });
}

export function isHedgeLoss(reason: unknown): boolean {
  return reason instanceof ProxyError && reason.detail === DETAIL;
}
