import { describe, expect, it } from 'vitest';
import { isSuccessEnvelope, normalizeError } from '../../src/transform/envelope.js';

const norm = (status: number, raw: string) => {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  const r = normalizeError(status, json, Buffer.from(raw));
  return { status: r.status, json: JSON.parse(r.body.toString()) as unknown, same: r.body.toString() === raw };
};

describe('isSuccessEnvelope', () => {
  it('needs 2xx, code 0, a string msg and data', () => {
    expect(isSuccessEnvelope(200, { code: 0, msg: 'success', data: null })).toBe(true);
    expect(isSuccessEnvelope(200, { code: 0, msg: 'success', data: [] })).toBe(true);
    expect(isSuccessEnvelope(500, { code: 0, msg: 'success', data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { code: 1, msg: 'x', data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { code: '0', msg: 'x', data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { msg: 'success', data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { code: 0, data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { code: 0, msg: 5, data: {} })).toBe(false);
    expect(isSuccessEnvelope(200, { code: 0, msg: 'success' })).toBe(false);
    expect(isSuccessEnvelope(200, [])).toBe(false);
    expect(isSuccessEnvelope(200, null)).toBe(false);
    expect(isSuccessEnvelope(200, undefined)).toBe(false);
  });
});

describe('normalizeError', () => {
  it('passes a well-formed upstream error through byte for byte, keeping the status', () => {
    const raw = '{"code":404,"msg":"tx not found","data":null}';
    expect(norm(404, raw)).toEqual({ status: 404, json: JSON.parse(raw), same: true });
    expect(norm(200, '{"code":1,"msg":"bad address","data":{}}').same).toBe(true);
  });

  it('keeps a non-zero integer code and a string msg, fills the rest', () => {
    expect(norm(400, '{"code":17,"msg":"bad"}').json).toEqual({ code: 17, msg: 'bad', data: null });
    expect(norm(400, '{"code":17,"message":"from message"}').json).toEqual({
      code: 17,
      msg: 'from message',
      data: null,
    });
  });

  it('derives code from the status (or 5023 for a 2xx) and msg from message/error or a generic text', () => {
    expect(norm(500, '{"error":"boom"}')).toEqual({
      status: 500,
      json: { code: 500, msg: 'boom', data: null },
      same: false,
    });
    expect(norm(503, '{"error":{"message":"nested"}}').json).toEqual({ code: 503, msg: 'nested', data: null });
    expect(norm(200, '{"code":0,"msg":7,"data":{}}').json).toEqual({ code: 5023, msg: 'upstream error', data: null });
    expect(norm(200, '{"code":"1","msg":"s"}').json).toEqual({ code: 5023, msg: 's', data: null });
    expect(norm(502, '<html>bad gateway</html>')).toEqual({
      status: 502,
      json: { code: 502, msg: 'upstream error (HTTP 502)', data: null },
      same: false,
    });
    expect(norm(404, '[1,2]').json).toEqual({ code: 404, msg: 'upstream error (HTTP 404)', data: null });
    expect(norm(400, '{"code":1.5,"msg":"x","data":null}').json).toEqual({ code: 400, msg: 'x', data: null });
  });

  it('bounds a long upstream message', () => {
    const msg = norm(500, JSON.stringify({ message: 'x'.repeat(10_000) })).json as { msg: string };
    expect(msg.msg.length).toBeLessThanOrEqual(500);
  });
});
