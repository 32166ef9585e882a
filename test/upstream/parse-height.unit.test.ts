/** The head in a block/max answer, however the upstream writes it. */
import { describe, expect, it } from 'vitest';
import { parseHeight } from '../../src/upstream/prober.js';

describe('parseHeight', () => {
  it('reads data.height written as 4842503.0, an integer, or a numeric string', () => {
    expect(
      parseHeight(
        JSON.parse('{"code":0,"msg":"success","data":{"height":4842503.0,"server_timestamp":1}}') as Record<
          string,
          unknown
        >,
      ),
    ).toBe(4842503);
    expect(parseHeight({ data: { height: 7 } })).toBe(7);
    expect(parseHeight({ data: { height: '4842503.0' } })).toBe(4842503);
    expect(parseHeight({ data: { height: -1 } })).toBeNull();
    expect(parseHeight({ data: { height: 'x' } })).toBeNull();
    expect(parseHeight({ data: null })).toBeNull();
    expect(parseHeight({})).toBeNull();
  });
});
