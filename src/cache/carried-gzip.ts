/**
 * The gzip bytes a body arrived with. The Redis codec stores bodies gzip-compressed
 * (level 6, the memory tier's own setting) and notes here, on decode, that those
 * bytes are the gzip variant of the body, so a Redis hit needs no compression to
 * answer a gzip request. Keyed by the body buffer: entry copies that keep the body
 * (finality promotion, a soft purge) keep its gzip bytes; gone with the body.
 * The bytes may be a view into a larger buffer: whoever keeps them copies them
 * (`ownedBytes`) and carries the copy instead.
 */
const carried = new WeakMap<Buffer, Buffer>();

export function carryGzip(body: Buffer, gzip: Buffer): void {
  carried.set(body, gzip);
}

/** The gzip bytes of `body`, or null when it did not arrive compressed. */
export function carriedGzip(body: Buffer): Buffer | null {
  return carried.get(body) ?? null;
}
