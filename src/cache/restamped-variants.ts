/**
 * Compressed payloads of re-stamped entries, made off the request path.
 *
 * An entry with time-relative fields (stamps) is re-rendered once a second;
 * its gzip/br variants would then have to be re-compressed too. Instead of
 * compressing on the request that first asks in a new second, that request
 * gets the re-stamped identity bytes (always acceptable: Vary: Accept-Encoding)
 * and the compression for that second runs in the background (zlib's thread
 * pool); later requests of the same second get the compressed bytes. Stamp-free
 * entries and the stored (never re-stamped) bytes are served as the memory
 * tier holds them.
 *
 * Held in a WeakMap per memory entry: at most one compressed payload per
 * encoding, of the current second, gone with the entry. Not charged to the
 * memory tier's byte bound (it is at most the size of the entry's stored
 * variants, for entries hit with compression in the last second).
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { MemoryEntry, Payload } from './memory-store.js';
import type { Encoding } from './types.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Same settings as the memory tier's stored variants. */
function compress(enc: 'gzip' | 'br', body: Buffer): Promise<Buffer> {
  if (enc === 'gzip') return gzipAsync(body, { level: 6 });
  return brotliAsync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

interface Second {
  second: number;
  gzip: Payload | null;
  br: Payload | null;
  /** Compressions under way for `second` (bit 1 gzip, bit 2 br). */
  pending: number;
}

const seconds = new WeakMap<MemoryEntry, Second>();

/** Background compressions still running (tests wait for them). */
let running = 0;
export const compressionsRunning = (): number => running;

/** What a hit sends for `encoding` at `nowMs`: never compresses synchronously. */
export function hitPayload(mem: MemoryEntry, encoding: Encoding, nowMs: number): Payload {
  if (encoding === 'identity' || mem.entry.stamps.length === 0 || nowMs === mem.entry.createdAt)
    return mem.payload(encoding, nowMs);
  // No stored variant for this encoding (small or incompressible body): identity.
  if (mem.raw(encoding).encoding !== encoding) return mem.payload('identity', nowMs);
  const s = Math.floor(nowMs / 1000);
  let st = seconds.get(mem);
  if (st === undefined) {
    st = { second: s, gzip: null, br: null, pending: 0 };
    seconds.set(mem, st);
  } else if (st.second !== s) {
    st.second = s;
    st.gzip = null;
    st.br = null;
    st.pending = 0;
  }
  const ready = st[encoding];
  if (ready !== null) return ready;
  const id = mem.payload('identity', nowMs);
  const bit = encoding === 'gzip' ? 1 : 2;
  if ((st.pending & bit) === 0) {
    st.pending |= bit;
    const state = st;
    running++;
    compress(encoding, id.body).then(
      (body) => {
        running--;
        if (state.second === s && body.length < id.body.length) state[encoding] = { body, encoding };
      },
      () => {
        running--;
      },
    );
  }
  return id;
}
