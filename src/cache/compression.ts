/**
 * The compressed variants' settings: gzip level 6, brotli quality 5 (text
 * mode, sized to the body), in the background or at once.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

const GZIP_OPTS = { level: 6 };
const brotliOpts = (size: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
});
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export const compress = (enc: 'gzip' | 'br', body: Buffer): Promise<Buffer> =>
  enc === 'gzip' ? gzipAsync(body, GZIP_OPTS) : brotliAsync(body, brotliOpts(body.length));

export const compressSync = (enc: 'gzip' | 'br', body: Buffer): Buffer =>
  enc === 'gzip' ? gzipSync(body, GZIP_OPTS) : brotliCompressSync(body, brotliOpts(body.length));
