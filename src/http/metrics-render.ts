/**
 * Cheap repeated scrapes: the Prometheus text is rendered at most once per
 * `minIntervalMs`; scrapes within that window get the last rendering, and
 * concurrent scrapes during a render share it. With 0 every scrape renders
 * (concurrent ones still share one render).
 */
export function throttledRender(
  render: () => Promise<string>,
  minIntervalMs: number,
  clock: () => number = Date.now,
): () => Promise<string> {
  let last: { text: string; at: number } | null = null;
  let running: Promise<string> | null = null;
  return () => {
    if (running !== null) return running;
    if (last !== null && minIntervalMs > 0 && clock() - last.at < minIntervalMs) return Promise.resolve(last.text);
    const started = clock();
    running = render().then(
      (text) => {
        last = { text, at: started };
        running = null;
        return text;
      },
      (err: unknown) => {
        running = null;
        throw err;
      },
    );
    return running;
  };
}
