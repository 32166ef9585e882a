/**
 * The endpoint catalogue: one EndpointDef per endpoint module (parameters,
 * cross checks, cache policy with configured overrides applied).
 */
import { ENDPOINTS } from '../endpoints/index.js';
import { applyOverrides, DEFAULT_POLICIES, type PolicyOverrides } from './policies.js';
import type { EndpointDef, EndpointName } from './types.js';

export class Catalogue {
  readonly #defs: readonly EndpointDef[];
  readonly #byName: ReadonlyMap<string, EndpointDef>;
  readonly #byPath: ReadonlyMap<string, EndpointDef>;

  constructor(defs: readonly EndpointDef[]) {
    this.#defs = defs;
    this.#byName = new Map(defs.map((d) => [d.name, d]));
    this.#byPath = new Map(defs.map((d) => [`/${d.name}`, d]));
  }

  get(name: EndpointName): EndpointDef {
    const def = this.#byName.get(name);
    if (def === undefined) throw new Error(`no catalogue entry for ${name}`);
    return def;
  }

  all(): readonly EndpointDef[] {
    return this.#defs;
  }

  /**
   * New policies in place (a reload): each definition's policy object is
   * rewritten, so every reader of `endpoint.policy` (and a page sharing one)
   * uses it from its next use; stored entries keep the windows they were given.
   */
  setPolicies(overrides: PolicyOverrides = {}): void {
    const policies = applyOverrides(DEFAULT_POLICIES, overrides);
    for (const def of this.#defs) Object.assign(def.policy, policies[def.name]);
  }

  /**
   * The endpoint of a request path such as `/tx/list` (no query). Exact match:
   * no trailing-slash, case or double-slash tolerance, like the routes.
   */
  match(pathname: string): EndpointDef | undefined {
    return this.#byPath.get(pathname);
  }
}

export function buildCatalogue(overrides: PolicyOverrides = {}): Catalogue {
  const policies = applyOverrides(DEFAULT_POLICIES, overrides);
  return new Catalogue(
    ENDPOINTS.map((module) => ({
      name: module.path,
      params: module.params,
      check: module.check ?? undefined,
      policy: policies[module.path],
      module,
    })),
  );
}
