/**
 * The chain tracker and the fleet's 'head' messages, on either transport
 * (Redis: connect.ts; the cluster primary: src/cluster/worker-fleet.ts).
 */
import type { ChainTracker } from '../chain/tracker.js';
import type { Bus } from './link.js';

/**
 * Local head/final advances are published; remote ones are applied with
 * observeHead/observeFinal. The tracker is monotonic and remote applications
 * are not re-published, so there is no echo loop. Returns a disconnect function.
 */
export function connectTrackerToBus(tracker: ChainTracker, bus: Bus): () => void {
  let applying = false;
  const onHead = (h: number) => {
    if (!applying) void bus.publish('head', h, false);
  };
  const onFinal = (h: number) => {
    if (!applying) void bus.publish('head', h, true);
  };
  const onRemote = (height: number, final: boolean) => {
    applying = true;
    try {
      if (final) tracker.observeFinal(height);
      else tracker.observeHead(height);
    } finally {
      applying = false;
    }
  };
  // After a reconnect, tell the fleet what this replica knows (peers may have missed it).
  const onSubscribed = () => {
    const head = tracker.bestHead();
    const final = tracker.finalHeight();
    if (head !== null) void bus.publish('head', head, false);
    if (final !== null) void bus.publish('head', final, true);
  };
  tracker.on('head', onHead);
  tracker.on('final', onFinal);
  bus.on('head', onRemote);
  bus.on('subscribed', onSubscribed);
  return () => {
    tracker.off('head', onHead);
    tracker.off('final', onFinal);
    bus.off('head', onRemote);
    bus.off('subscribed', onSubscribed);
  };
}
