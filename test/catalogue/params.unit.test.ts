import { describe, expect, it } from 'vitest';
import { echo, P } from '../../src/endpoints/params.js';
import type { ParamLimits } from '../../src/endpoints/types.js';
import { ADDR, HASH, limits } from './helpers.js';

// The parsers, as the parameters declare them.
const parsePage = (raw: string) => P.page.parse(raw, limits);
const parsePageSize = (raw: string, l: ParamLimits = limits) => P.pageSize.parse(raw, l);
const parseDays = (raw: string, l: ParamLimits = limits) => P.days(1).parse(raw, l);
const parseBlockHeight = (raw: string) => P.blockHeight.parse(raw, limits);
const parseAddress = (raw: string) => P.address.parse(raw, limits);
const parseHash = (raw: string) => P.hash.parse(raw, limits);
const parseHeightOrHash = (raw: string) => P.h.parse(raw, limits);
const parseTokenName = (raw: string) => P.token.parse(raw, limits);
const parseFlag = (raw: string) => P.isNrc20.parse(raw, limits);

const value = (r: { ok: boolean; value?: string }) => (r.ok ? r.value : null);

describe('parameter parsers', () => {
  it('page: integers 1..10_000_000, leading zeros dropped, no sign/fraction/exponent', () => {
    expect(value(parsePage('1'))).toBe('1');
    expect(value(parsePage('007'))).toBe('7');
    expect(value(parsePage('10000000'))).toBe('10000000');
    for (const bad of ['0', '-1', '+1', '1.0', '1e3', ' 1', '', '10000001', 'abc', '0x10', '99999999999999999999999'])
      expect(parsePage(bad).ok, bad).toBe(false);
  });

  it('page_size and days follow the limits', () => {
    expect(value(parsePageSize('100', limits))).toBe('100');
    expect(parsePageSize('101', limits).ok).toBe(false);
    expect(parsePageSize('0', limits).ok).toBe(false);
    expect(value(parsePageSize('150', { maxPageSize: 200, maxDays: 1 }))).toBe('150');
    expect(value(parseDays('365', limits))).toBe('365');
    expect(parseDays('366', limits).ok).toBe(false);
  });

  it('block_height: non-negative integer', () => {
    expect(value(parseBlockHeight('0'))).toBe('0');
    expect(value(parseBlockHeight('004820298'))).toBe('4820298');
    expect(parseBlockHeight('-5').ok).toBe(false);
    expect(parseBlockHeight('12.5').ok).toBe(false);
  });

  it('address: n + 34 base58 characters', () => {
    expect(value(parseAddress(ADDR))).toBe(ADDR);
    expect(parseAddress(ADDR.slice(0, 34)).ok).toBe(false);
    expect(parseAddress(`${ADDR}x`).ok).toBe(false);
    expect(parseAddress(`m${ADDR.slice(1)}`).ok).toBe(false);
    expect(parseAddress(`${ADDR.slice(0, 34)}0`).ok).toBe(false); // 0 is not base58
    expect(parseAddress(`${ADDR.slice(0, 34)}l`).ok).toBe(false); // nor l
  });

  it('hash: 64 hex, canonical lowercase', () => {
    expect(value(parseHash(HASH.toUpperCase()))).toBe(HASH);
    expect(parseHash(HASH.slice(1)).ok).toBe(false);
    expect(parseHash(`${HASH.slice(1)}g`).ok).toBe(false);
  });

  it('h: height or hash', () => {
    expect(value(parseHeightOrHash('0100'))).toBe('100');
    expect(value(parseHeightOrHash(HASH.toUpperCase()))).toBe(HASH);
    expect(parseHeightOrHash('abc').ok).toBe(false);
  });

  it('token name keeps case', () => {
    expect(value(parseTokenName('NAX'))).toBe('NAX');
    expect(value(parseTokenName('nax'))).toBe('nax');
    expect(value(parseTokenName('a.b_c-1'))).toBe('a.b_c-1');
    expect(parseTokenName('a b').ok).toBe(false);
    expect(parseTokenName('x'.repeat(65)).ok).toBe(false);
  });

  it('is_nrc20: true/false/1/0 → true/false', () => {
    expect(value(parseFlag('1'))).toBe('true');
    expect(value(parseFlag('TRUE'))).toBe('true');
    expect(value(parseFlag('0'))).toBe('false');
    expect(value(parseFlag('false'))).toBe('false');
    for (const bad of ['', 'yes', '2', 'truee']) expect(parseFlag(bad).ok, bad).toBe(false);
  });

  it('echo truncates and hides control characters and quotes', () => {
    expect(echo('x'.repeat(100))).toBe(`${'x'.repeat(40)}...`);
    expect(echo('a\u0000b\nc"d')).toBe('a?b?c?d');
  });
});
