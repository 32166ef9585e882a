/**
 * The 22 endpoints: parameters (with defaults, so equivalent requests share a
 * key) and cross-parameter rules. Policies come from policies.ts.
 */
import { P } from './params.js';
import type { EndpointName, ParamSpec } from './types.js';

/**
 * A cross-check message starting with this prefix is reported as
 * MISSING_PARAMETER; any other message as BAD_PARAMETER.
 */
export const MISSING_PREFIX = 'missing parameter';

const paged: readonly ParamSpec[] = [P.page, P.pageSize];

const contract: ParamSpec = P.optAddress('contract');

/** token/tx/list and token/holders: exactly one of token or contract. */
function tokenOrContract(params: ReadonlyMap<string, string>): string | null {
  const t = params.has('token');
  const c = params.has('contract');
  if (t && c) return 'invalid parameter token/contract: expected exactly one of token or contract, got both';
  if (!t && !c) return `${MISSING_PREFIX} token or contract: expected exactly one of token (a token name) or contract (a contract address)`;
  return null;
}

export interface EndpointShape {
  params: readonly ParamSpec[];
  check?: (params: ReadonlyMap<string, string>) => string | null;
}

export const ENDPOINT_SHAPES: Readonly<Record<EndpointName, EndpointShape>> = {
  'tx/nrc20': { params: [P.address, ...paged] },
  'tx/detail': { params: [P.hash] },
  'tx/list': { params: [P.blockHeight, ...paged] },
  'tx/list/pending': { params: paged },
  'tx/listByAddress': { params: [P.address, P.isNrc20, ...paged] },
  'tx/count/history': { params: [P.days(15)] },
  'tx/count/today': { params: [] },
  'block/list': { params: paged },
  'block/detail': { params: [P.h] },
  'block/max': { params: [] },
  contracts: { params: paged },
  'token/list': { params: [] },
  'token/detail': { params: [P.token] },
  'token/tx/list': { params: [P.optToken, contract, ...paged], check: tokenOrContract },
  'token/holders': { params: [P.optToken, contract, ...paged], check: tokenOrContract },
  holders: { params: paged },
  'nax/history': { params: paged },
  'nax/summary': { params: [] },
  'nax/profits': { params: [P.address, ...paged] },
  'address/info': { params: [P.address] },
  'address/count/history': { params: [P.days(30)] },
  'chain/summary': { params: [] },
};
