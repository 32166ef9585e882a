import { describe, expect, it } from 'vitest';
import type { EndpointName } from '../../src/catalogue/types.js';
import { ADDR, errorOf, HASH } from './helpers.js';

type Case = [EndpointName, string, string, RegExp];

// [endpoint, query, expected kind, message]
const CASES: Case[] = [
  ['tx/list', 'page=0', 'BAD_PARAMETER', /^invalid parameter page: expected an integer from 1 to 10000000, got "0"$/],
  ['tx/list', 'page=1.5', 'BAD_PARAMETER', /page: .*got "1.5"/],
  ['tx/list', 'page=-1', 'BAD_PARAMETER', /page: /],
  ['tx/list', 'page=', 'BAD_PARAMETER', /page: .*got ""/],
  ['tx/list', 'page', 'BAD_PARAMETER', /page: /],
  [
    'tx/list',
    'page_size=500',
    'BAD_PARAMETER',
    /^invalid parameter page_size: expected an integer from 1 to 100, got "500"$/,
  ],
  ['tx/list', 'page_size=0', 'BAD_PARAMETER', /page_size: /],
  ['tx/count/history', 'days=366', 'BAD_PARAMETER', /days: expected an integer from 1 to 365/],
  ['address/count/history', 'days=0', 'BAD_PARAMETER', /days: /],
  ['tx/list', 'block_height=abc', 'BAD_PARAMETER', /block_height: expected a block height/],
  ['tx/nrc20', 'address=n1short', 'BAD_PARAMETER', /address: expected a Nebulas address/],
  ['address/info', `address=${ADDR.replace('J', '0')}`, 'BAD_PARAMETER', /address: /],
  ['tx/detail', 'hash=xyz', 'BAD_PARAMETER', /hash: expected a hash \(64 hexadecimal characters\)/],
  ['block/detail', 'h=12a', 'BAD_PARAMETER', /h: expected a block height .* or a block hash/],
  ['tx/listByAddress', `address=${ADDR}&is_nrc20=yes`, 'BAD_PARAMETER', /is_nrc20: expected one of true, false, 1, 0/],
  ['token/detail', 'token=a%20b', 'BAD_PARAMETER', /token: expected a token name/],
  [
    'token/tx/list',
    `token=NAX&contract=${ADDR}`,
    'BAD_PARAMETER',
    /token\/contract: expected exactly one of token or contract, got both/,
  ],
  ['token/holders', 'contract=bad', 'BAD_PARAMETER', /contract: /],
  ['token/tx/list', '', 'MISSING_PARAMETER', /^missing parameter token or contract/],
  ['token/holders', 'page=2', 'MISSING_PARAMETER', /token or contract/],
  ['token/detail', '', 'MISSING_PARAMETER', /^missing parameter token: expected a token name/],
  ['tx/detail', '', 'MISSING_PARAMETER', /^missing parameter hash: /],
  ['block/detail', '', 'MISSING_PARAMETER', /^missing parameter h: /],
  ['address/info', '', 'MISSING_PARAMETER', /^missing parameter address: /],
  ['tx/listByAddress', 'is_nrc20=1', 'MISSING_PARAMETER', /address/],
  ['tx/nrc20', '', 'MISSING_PARAMETER', /address/],
  ['nax/profits', '', 'MISSING_PARAMETER', /address/],
  ['tx/list', 'page=1&page=1', 'DUPLICATE_PARAMETER', /^duplicated parameter page/],
  ['tx/list', 'page=1&pa%67e=2', 'DUPLICATE_PARAMETER', /page/],
  ['tx/detail', `hash=${HASH}&hash=${HASH}`, 'DUPLICATE_PARAMETER', /hash/],
  ['tx/list', 'page=%', 'BAD_PARAMETER', /page: malformed percent-encoding/],
  ['tx/list', 'page=%E0%A4%A', 'BAD_PARAMETER', /malformed percent-encoding/],
  ['tx/list', 'page=1%00', 'BAD_PARAMETER', /page: control characters/],
  ['tx/list', 'page=%0a1', 'BAD_PARAMETER', /control characters/],
  ['tx/list', 'foo=%7F', 'BAD_PARAMETER', /foo: control characters/],
  ['tx/list', 'f%01oo=1', 'BAD_PARAMETER', /invalid parameter name "f\?oo": control characters/],
];

describe('validation errors', () => {
  it.each(CASES)('%s?%s → %s', (name, query, kind, message) => {
    const err = errorOf(name, query);
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(400);
    expect(err.code).not.toBe(0);
    expect(err.message).toMatch(message);
  });

  it('echoed values are truncated and free of control characters', () => {
    const err = errorOf('tx/list', `page=${'9'.repeat(100)}`);
    expect(err.message).toBe(
      `invalid parameter page: expected an integer from 1 to 10000000, got "${'9'.repeat(40)}..."`,
    );
  });

  it('page_size bound follows the configured limit', () => {
    const err = errorOf('tx/list', 'page_size=60', { maxPageSize: 50, maxDays: 365 });
    expect(err.message).toMatch(/expected an integer from 1 to 50, got "60"/);
  });
});
