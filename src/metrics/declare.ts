/**
 * The one way to build a metric family: by its row of ./table.ts, on a
 * registry. prom-client families for label values known only at run time;
 * dense families (./collectors.ts) for bounded label sets on hot paths, where
 * counting is an array write with no label hashing or allocation.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CallbackGauge, DenseCounter, DenseHistogram, type Labels } from './collectors.js';
import { METRICS, METRIC_PREFIX, type MetricName, type MetricType } from './table.js';

type NameOf<T extends MetricType> = {
  [K in MetricName]: (typeof METRICS)[K]['type'] extends T ? K : never;
}[MetricName];
/** The label names a row declares. */
type LabelOf<K extends MetricName> = (typeof METRICS)[K]['labels'][number];
/** One series of a row: a value for each of its labels. */
type SeriesOf<K extends MetricName> = Readonly<Record<LabelOf<K>, string>>;

function row<K extends MetricName>(name: K): (typeof METRICS)[K] & { name: string } {
  return { ...METRICS[name], name: `${METRIC_PREFIX}${name}` };
}

interface CounterOptions<K extends MetricName> {
  /** Series shown from the start (at 0), so a dashboard shows a zero, not "no data". */
  start?: ReadonlyArray<SeriesOf<K>>;
  /** A total counted elsewhere, read at scrape time (label-less rows). */
  total?: () => number;
}

export function counter<K extends NameOf<'counter'>>(
  registry: Registry,
  name: K,
  options: CounterOptions<K> = {},
): Counter<LabelOf<K>> {
  const r = row(name);
  const total = options.total;
  const c = new Counter<LabelOf<K>>({
    name: r.name,
    help: r.help,
    labelNames: r.labels,
    registers: [registry],
    ...(total && {
      collect() {
        this.reset();
        this.inc(total());
      },
    }),
  });
  for (const labels of options.start ?? []) c.inc(labels, 0);
  return c;
}

/** A gauge; `collect` sets it at scrape time. */
export function gauge<K extends NameOf<'gauge'>>(
  registry: Registry,
  name: K,
  collect?: (g: Gauge<LabelOf<K>>) => void,
): Gauge<LabelOf<K>> {
  const r = row(name);
  return new Gauge<LabelOf<K>>({
    name: r.name,
    help: r.help,
    labelNames: r.labels,
    registers: [registry],
    ...(collect && {
      collect() {
        collect(this);
      },
    }),
  });
}

export function histogram<K extends NameOf<'histogram'>>(registry: Registry, name: K): Histogram<LabelOf<K>> {
  const r = row(name);
  return new Histogram<LabelOf<K>>({
    name: r.name,
    help: r.help,
    labelNames: r.labels,
    buckets: [...r.buckets],
    registers: [registry],
  });
}

/** The series' label names must be the row's (a mismatch is a programming error, found at start). */
function checked<K extends MetricName>(name: K, series: ReadonlyArray<SeriesOf<K>>): readonly Labels[] {
  const want = [...METRICS[name].labels].sort().join(',');
  for (const s of series)
    if (Object.keys(s).sort().join(',') !== want) throw new Error(`${name}: series ${JSON.stringify(s)}`);
  return series;
}

/** A counter over a fixed list of series, counted by series index. */
export function denseCounter<K extends NameOf<'counter'>>(
  registry: Registry,
  name: K,
  series: ReadonlyArray<SeriesOf<K>>,
): DenseCounter {
  const r = row(name);
  return new DenseCounter(r.name, r.help, checked(name, series)).register(registry);
}

/** A histogram over a fixed list of series, observed by series index. */
export function denseHistogram<K extends NameOf<'histogram'>>(
  registry: Registry,
  name: K,
  series: ReadonlyArray<SeriesOf<K>>,
): DenseHistogram {
  const r = row(name);
  return new DenseHistogram(r.name, r.help, r.buckets, checked(name, series)).register(registry);
}

/** A gauge whose samples `read` returns at scrape time (none: no series). */
export function callbackGauge<K extends NameOf<'gauge'>>(
  registry: Registry,
  name: K,
  read: () => Array<{ labels: SeriesOf<K>; value: number }>,
): CallbackGauge {
  const r = row(name);
  return new CallbackGauge(r.name, r.help, read).register(registry);
}
