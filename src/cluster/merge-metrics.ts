/**
 * One /metrics document for the machine from each worker's own (Prometheus
 * text format): every sample gains a `worker` label, and the samples of a
 * family are gathered under its one HELP and TYPE, families in the order they
 * first appear. Nothing is summed: a gauge such as the chain head means
 * nothing added up, and `sum without (worker)` is the operator's to write.
 */

interface Family {
  meta: string[];
  samples: string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** A sample line with `worker="<id>"` as its first label. */
function labelled(line: string, worker: string): string {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return line;
  const rest = line.slice(name.length);
  const label = `worker="${worker}"`;
  if (rest.startsWith('{}')) return `${name}{${label}}${rest.slice(2)}`;
  if (rest.startsWith('{')) return `${name}{${label},${rest.slice(1)}`;
  return `${name}{${label}}${rest}`;
}

export function mergeMetrics(docs: ReadonlyArray<{ worker: string; text: string }>): string {
  const families = new Map<string, Family>();
  const familyOf = (name: string): Family => {
    let f = families.get(name);
    if (f === undefined) {
      f = { meta: [], samples: [] };
      families.set(name, f);
    }
    return f;
  };
  for (const { worker, text } of docs) {
    let current = familyOf('');
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (meta !== null) {
        current = familyOf(meta[2]!);
        if (!current.meta.some((m) => m.startsWith(`# ${meta[1]} `))) current.meta.push(line);
      } else if (!line.startsWith('#')) current.samples.push(labelled(line, worker));
    }
  }
  const out: string[] = [];
  for (const f of families.values()) out.push(...f.meta, ...f.samples);
  return `${out.join('\n')}\n`;
}
