/**
 * The sampling decision for a request that starts a trace (no incoming
 * `traceparent`), taken before any span object is built, when the sampler
 * decides roots by trace-id ratio (OTEL_TRACES_SAMPLER `traceidratio` or
 * `parentbased_traceidratio`). It is the decision the SDK's
 * TraceIdRatioBasedSampler takes of the same trace id: the XOR of the id's
 * four 32-bit words below ratio × 0xffffffff. One random word is drawn and
 * compared; the id is made only when a span needs it, with its last word
 * chosen so that the XOR is the word drawn. A sampled root's id is handed to
 * the SDK (`idGenerator`), whose sampler then agrees.
 */
/** The SDK's id generator (its IdGenerator), by shape: this file imports no OpenTelemetry package. */
export interface Ids {
  generateTraceId(): string;
  generateSpanId(): string;
}

const RATIO_SAMPLERS = new Set(['traceidratio', 'parentbased_traceidratio']);

/** The environment's value as the SDK reads it: trimmed, blank as unset. */
const envString = (env: NodeJS.ProcessEnv, key: string): string | undefined => {
  const v = env[key]?.trim();
  return v === undefined || v === '' ? undefined : v;
};

/** A sampler that decides roots by trace id. */
export interface RatioSampling {
  /** Roots sampled at this ratio. */
  ratio: number;
  /** Children follow their parent's decision (`parentbased_traceidratio`). */
  parentBased: boolean;
}

/**
 * The ratio roots are sampled at when OTEL_TRACES_SAMPLER decides them by
 * trace id (its argument, 1 when blank, not a number or outside [0, 1], as
 * the SDK reads it); null for any other sampler.
 */
export function ratioSampling(env: NodeJS.ProcessEnv): RatioSampling | null {
  const name = envString(env, 'OTEL_TRACES_SAMPLER');
  if (name === undefined || !RATIO_SAMPLERS.has(name)) return null;
  const raw = envString(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = raw === undefined ? NaN : Number(raw);
  return {
    ratio: Number.isNaN(ratio) || ratio < 0 || ratio > 1 ? 1 : ratio,
    parentBased: name === 'parentbased_traceidratio',
  };
}

/** The SDK's bound: an id whose words XOR below it is sampled. */
const upperBound = (ratio: number): number => (ratio >= 1 ? 0x100000000 : Math.floor(ratio * 0xffffffff));

const word = (): number => (Math.random() * 0x100000000) >>> 0;

const hex8 = (w: number): string => w.toString(16).padStart(8, '0');

export class RootSampler {
  readonly #bound: number;
  /** The SDK's random ids, for every id not drawn here. */
  readonly #ids: Ids;
  /** The XOR of the last drawn id's words (never 0: an all-zero id is invalid). */
  #xor = 1;
  /** A sampled root's id, for the SDK's next root span. */
  #handed: string | null = null;

  constructor(ratio: number, ids: Ids) {
    this.#bound = upperBound(ratio);
    this.#ids = ids;
  }

  /** Draws a root's trace id (its words' XOR only): whether the SDK's sampler samples it. */
  draw(): boolean {
    this.#xor = word() || 1;
    return this.#xor < this.#bound;
  }

  /** The last drawn trace id, 32 lowercase hex digits. */
  traceId(): string {
    const a = word();
    const b = word();
    const c = word();
    return hex8(a) + hex8(b) + hex8(c) + hex8((this.#xor ^ a ^ b ^ c) >>> 0);
  }

  /** A new span id, as the SDK makes them. */
  spanId(): string {
    return this.#ids.generateSpanId();
  }

  /** Hands the last drawn trace id to the SDK's next root span (a sampled root, started right after). */
  hand(): void {
    this.#handed = this.traceId();
  }

  /** The SDK's id generator: the handed id once, else random ids. */
  readonly idGenerator: Ids = {
    generateTraceId: () => {
      const id = this.#handed;
      this.#handed = null;
      return id ?? this.#ids.generateTraceId();
    },
    generateSpanId: () => this.#ids.generateSpanId(),
  };
}
