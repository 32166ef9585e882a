import { describe, expect, it } from 'vitest';
import { contextFrameFlags, contextFrameNotice } from '../../src/startup/context-frame.js';

const FLAG = '--experimental-async-context-frame';

describe('request context on AsyncContextFrame for a traced server', () => {
  it('Node.js 22 traced: the flag; untraced or on 24: none', () => {
    expect(contextFrameFlags(true, [], undefined, 'v22.13.0')).toEqual([FLAG]);
    expect(contextFrameFlags(false, [], undefined, 'v22.13.0')).toEqual([]);
    expect(contextFrameFlags(true, [], undefined, 'v24.1.0')).toEqual([]);
    expect(contextFrameFlags(true, [], undefined, 'v25.0.0')).toEqual([]);
  });

  it("an operator's own choice stays, as a flag or in NODE_OPTIONS, either way", () => {
    expect(contextFrameFlags(true, [FLAG], undefined, 'v22.13.0')).toEqual([]);
    expect(contextFrameFlags(true, ['--no-async-context-frame'], undefined, 'v22.13.0')).toEqual([]);
    expect(contextFrameFlags(true, [], `--max-old-space-size=512 ${FLAG}`, 'v22.13.0')).toEqual([]);
  });

  it('the notice says what the missing flag costs and how to get it; none when nothing is missing', () => {
    const notice = contextFrameNotice(true, [], undefined, 'v22.13.0');
    expect(notice).toContain(FLAG);
    expect(notice).toContain('npm start');
    expect(notice).toContain('NODE_OPTIONS');
    expect(contextFrameNotice(true, [FLAG], undefined, 'v22.13.0')).toBeNull();
    expect(contextFrameNotice(false, [], undefined, 'v22.13.0')).toBeNull();
  });
});
