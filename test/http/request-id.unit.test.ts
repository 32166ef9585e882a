/** The request id rule (request-id.ts) and the epilogue's log rules (epilogue.ts). */
import { describe, expect, it } from 'vitest';
import { isLogged, tenthsOfMs } from '../../src/http/epilogue.js';
import { isReasonableRequestId, requestIdOf } from '../../src/http/request-id.js';

describe('a client X-Request-Id', () => {
  it('is kept when 1 to 128 letters, digits or - _ . : + = / @', () => {
    for (const id of ['a', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', 'Root=1-5f84c7a6/x@y:z+_.', 'x'.repeat(128)])
      expect(requestIdOf(id)).toBe(id);
  });

  it('is replaced when empty, longer, repeated or with other characters', () => {
    for (const id of ['', 'x'.repeat(129), 'a, b', 'a b', 'é', '<script>', 'a\tb', 'a;b']) {
      expect(isReasonableRequestId(id)).toBe(false);
      expect(requestIdOf(id)).not.toBe(id);
    }
    expect(requestIdOf(['a', 'b'])).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('generated ids are distinct and reasonable', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => requestIdOf(undefined)));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(isReasonableRequestId(id)).toBe(true);
  });
});

describe('access-log rules', () => {
  it('ACCESS_LOG: all logs every answer, misses all but fresh hits, off none', () => {
    expect([isLogged('all', true), isLogged('all', false)]).toEqual([true, true]);
    expect([isLogged('misses', true), isLogged('misses', false)]).toEqual([false, true]);
    expect([isLogged('off', true), isLogged('off', false)]).toEqual([false, false]);
  });

  it('milliseconds are rounded to 0.1 ms', () => {
    expect(tenthsOfMs(1.0072409999993397)).toBe(1);
    expect(tenthsOfMs(12.349)).toBe(12.3);
    expect(tenthsOfMs(0.05)).toBe(0.1);
  });
});
