/**
 * A message from the cluster primary to one worker. A worker that died an
 * instant ago may still look connected (its exit not yet read): the write then
 * fails with EPIPE, which without a callback is an 'error' event that would
 * end the primary and every other worker with it. The failure is dropped here:
 * the worker's exit, read next, is what the primary acts on.
 */
export interface Recipient<M> {
  isConnected(): boolean;
  send(message: M, callback: (error: Error | null) => void): boolean;
}

/** True when the message was handed to the channel. */
export function tell<M>(to: Recipient<M>, message: M): boolean {
  if (!to.isConnected()) return false;
  try {
    return to.send(message, () => {});
  } catch {
    return false;
  }
}
