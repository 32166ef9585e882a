/**
 * A reload's new page table (CONFIG_FILE `pages:` over the built-in ones):
 * compiled against the running catalogue and handed to the engine, which the
 * one page route asks at each request. A page that is removed, or whose
 * declaration changed, loses its composed pages (they were made by the old
 * definition); an unchanged one keeps them. A page new to the process gets
 * its own metrics label value; a removed page's series stay and stop growing.
 */
import { PAGES } from '../page-table/defaults.js';
import { compilePages } from '../page-table/plan.js';
import type { PageTable } from '../page-table/types.js';
import type { Catalogue } from '../catalogue/index.js';
import type { Pages } from './engine.js';
import type { PageMetrics } from './metrics.js';

/** Names of `before` that `after` removes or declares differently. */
function changedPages(before: PageTable, after: PageTable): string[] {
  const was = { ...PAGES, ...before };
  const now: PageTable = { ...PAGES, ...after };
  return Object.keys(was).filter((name) => JSON.stringify(was[name]) !== JSON.stringify(now[name]));
}

export class PageTableSwap {
  #declared: PageTable;

  constructor(
    declared: PageTable,
    private readonly d: { pages: Pages; metrics: PageMetrics; catalogue: Catalogue },
  ) {
    this.#declared = declared;
  }

  /** Applies the configured pages of a reload (already validated by the configuration loader). */
  apply(declared: PageTable): void {
    const gone = changedPages(this.#declared, declared);
    if (gone.length === 0 && JSON.stringify(declared) === JSON.stringify(this.#declared)) return;
    const table = compilePages(PAGES, declared, this.d.catalogue);
    this.d.metrics.declare([...table.keys()]);
    this.d.pages.replace(table, gone);
    this.#declared = declared;
  }
}
