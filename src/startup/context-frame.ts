/**
 * Tracing keeps each request's span in the SDK's AsyncLocalStorage context
 * manager. On Node.js 22 that storage runs on async hooks which, once
 * enabled, cost every async resource and promise of the process (measured:
 * 8 % more CPU per memory hit with no span ever sampled); Node.js 24 keeps it
 * in V8's continuation data (AsyncContextFrame) at no measurable cost, and
 * Node.js 22 does the same behind `--experimental-async-context-frame`. The
 * launcher adds that flag when tracing is configured; a server started some
 * other way says what it costs.
 */
const FLAG = '--experimental-async-context-frame';
/** Also matches `--no-experimental-async-context-frame` / `--no-async-context-frame`: an operator's choice stays. */
const MENTIONED = /async[-_]context[-_]frame/;

/** Node.js lines whose AsyncLocalStorage is on async hooks unless the flag is given. */
const onHooks = (version: string): boolean => {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  return major === 22 || major === 23;
};

const mentioned = (execArgv: readonly string[], nodeOptions: string | undefined): boolean =>
  execArgv.some((a) => MENTIONED.test(a)) || MENTIONED.test(nodeOptions ?? '');

/** The node flags a traced server wants on this Node.js line (none: not traced, not needed, or the operator chose). */
export function contextFrameFlags(
  traced: boolean,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  version: string = process.version,
): string[] {
  return traced && onHooks(version) && !mentioned(execArgv, nodeOptions) ? [FLAG] : [];
}

/** The notice for a traced server running without the flag it wants (null: none to give). */
export function contextFrameNotice(
  traced: boolean,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  version: string = process.version,
): string | null {
  if (contextFrameFlags(traced, execArgv, nodeOptions, version).length === 0) return null;
  return (
    `notice: tracing on Node.js ${version} without ${FLAG} keeps request context on async hooks ` +
    `(about 8 % more CPU per request); start with the chainproxy launcher (npm start), which adds it, ` +
    `or add it to NODE_OPTIONS`
  );
}
