/**
 * The heap cap that makes the documented memory bound hold (RSS ≈ fixed
 * overhead + 1.5 × CACHE_MAX_BYTES + the stream budgets): V8's old space
 * capped at 96 MiB + CACHE_MAX_BYTES + STREAM_ACTIVITY_WATCH_BYTES (the
 * watches are heap objects; charged to a budget of their own, they must not
 * eat the headroom), and the young generation at 3 × 16 MiB semi-spaces on
 * every Node.js line (24 lets it grow to 3 × 64 MiB, 144 MiB past the bound
 * measured on 20 and 22). Without a cap V8 lets garbage pile up far past the
 * live heap under a distinct-key flood. An operator's own cap always wins.
 */

/** Old-space MiB beside the cache: the proxy's own live heap and garbage headroom. */
const HEAP_HEADROOM_MIB = 96;

/** Semi-space MiB of the young generation (Node 20 and 22's default). */
const SEMI_SPACE_MIB = 16;

const HEAP_FLAG = /--max[-_]old[-_]space[-_]size|--max[-_]heap[-_]size/;
const SEMI_FLAG = /--(max|min)[-_]semi[-_]space[-_]size/;

const setBy = (flag: RegExp, execArgv: readonly string[], nodeOptions: string | undefined): boolean =>
  execArgv.some((a) => flag.test(a)) || flag.test(nodeOptions ?? '');

/** True when the operator set a heap cap (a node flag or NODE_OPTIONS). */
export function operatorHeapCap(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return setBy(HEAP_FLAG, execArgv, nodeOptions);
}

/**
 * The node flags for a cache bound of `cacheMaxBytes` and a watch
 * budget of `watchBytes` (an operator's semi-space size stays).
 */
export function heapCapFlags(
  cacheMaxBytes: number,
  watchBytes: number,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] {
  const mib = (bytes: number): number => Math.ceil(bytes / 2 ** 20);
  const old = `--max-old-space-size=${HEAP_HEADROOM_MIB + mib(cacheMaxBytes) + mib(watchBytes)}`;
  return setBy(SEMI_FLAG, execArgv, nodeOptions) ? [old] : [old, `--max-semi-space-size=${SEMI_SPACE_MIB}`];
}
