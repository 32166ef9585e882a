/**
 * Bytes the cache may hold without holding more. Node hands out small
 * buffers as slices of shared 8 KiB pool slabs (Buffer.from, allocUnsafe,
 * concat) and network reads as slices of larger chunks; a cached slice keeps
 * its whole backing store alive, so a flood of small entries would pin a slab
 * each. Stored bytes are therefore copied into an allocation of their own
 * size unless they already own their whole backing store.
 */
export function ownedBytes(buf: Buffer): Buffer {
  if (buf.byteOffset === 0 && buf.buffer.byteLength === buf.length) return buf;
  const own = Buffer.allocUnsafeSlow(buf.length);
  buf.copy(own);
  return own;
}
