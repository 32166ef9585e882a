/**
 * The heap cap that makes the documented memory bound hold (RSS ≈ fixed
 * overhead + 1.5 × CACHE_MAX_BYTES + the stream budgets): V8's old space
 * capped at 96 MiB + CACHE_MAX_BYTES + STREAM_ACTIVITY_WATCH_BYTES (the
 * watches are heap objects; charged to a budget of their own, they must not
 * eat the headroom). Without a cap V8 lets garbage pile up far past the live
 * heap under a distinct-key flood. An operator's own cap always wins.
 */

/** Old-space MiB beside the cache: the proxy's own live heap and garbage headroom. */
const HEAP_HEADROOM_MIB = 96;

const HEAP_FLAG = /--max[-_]old[-_]space[-_]size|--max[-_]heap[-_]size/;

/** True when the operator set a heap cap (a node flag or NODE_OPTIONS). */
export function operatorHeapCap(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((a) => HEAP_FLAG.test(a)) || HEAP_FLAG.test(nodeOptions ?? '');
}

/** `--max-old-space-size` for a cache bound of `cacheMaxBytes` and a watch budget of `watchBytes`. */
export function heapCapFlag(cacheMaxBytes: number, watchBytes: number): string {
  return `--max-old-space-size=${HEAP_HEADROOM_MIB + Math.ceil(cacheMaxBytes / 2 ** 20) + Math.ceil(watchBytes / 2 ** 20)}`;
}
