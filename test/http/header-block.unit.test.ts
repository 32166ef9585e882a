/** The one Cache-Control formatter of the header builder. */
import { describe, expect, it } from 'vitest';
import { NO_STORE, cacheControl } from '../../src/http/header-block.js';

describe('cacheControl', () => {
  it('formats a stored answer public with its max-age, immutable for final content', () => {
    expect(cacheControl(5)).toBe('public, max-age=5');
    expect(cacheControl(0)).toBe('public, max-age=0');
    expect(cacheControl(86400, true)).toBe('public, max-age=86400, immutable');
    expect(cacheControl(300, false, 'private')).toBe('private, max-age=300');
  });

  it('formats what is never stored as no-store, private for operator answers', () => {
    expect(cacheControl(null)).toBe('no-store');
    expect(NO_STORE).toBe('no-store');
    expect(cacheControl(null, false, 'private')).toBe('private, no-store');
  });
});
