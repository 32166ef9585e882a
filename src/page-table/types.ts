/**
 * Page declarations: plain data, the same shape in the built-in table
 * (src/page-table/defaults.ts) and in CONFIG_FILE (`pages:`).
 *
 * A query value is a literal (`"1"`) or a template: alternatives separated by
 * `|`, each a literal or one reference in braces, the first that resolves wins:
 *
 *   {page_size}                 a page parameter
 *   {h:height} {h:hash}         a page parameter, only when it is a block height / a hash
 *   {block.height}              a field of another part's `data` (the part runs after it)
 *   {tokens[contract=tx.contract_address].token_name}
 *                               in the array `data` of part `tokens`, the item whose
 *                               `contract` equals the value at `tx.contract_address`
 *
 * A part whose query cannot be resolved (a field absent, null, empty) or whose
 * `when` reference is not truthy is skipped: `data` null, meta status `skipped`.
 */
import type { EndpointName } from '../catalogue/types.js';

/** Page parameters a page may accept (validated like the endpoints' own). */
export type PageParamName = 'h' | 'hash' | 'address' | 'token' | 'contract' | 'page_size';

interface PartDecl {
  endpoint: EndpointName;
  /** Query of the part's request; omitted parameters take the endpoint's defaults. */
  query?: Readonly<Record<string, string>>;
  /** A failed required part fails the page with that part's error envelope (default false). */
  required?: boolean;
  /** The part runs only when this reference is truthy (true, a non-empty string, a non-zero number). */
  when?: string;
  /** Resolved (and listed in meta) but left out of `data`: a lookup other parts derive from. */
  internal?: boolean;
}

export interface PageDecl {
  /** Page parameters: required or optional. */
  params: Readonly<Partial<Record<PageParamName, 'required' | 'optional'>>>;
  /** Exactly one of these parameters must be given. */
  exactlyOne?: readonly PageParamName[];
  /** Parts by name (the keys of `data`, in this order). */
  parts: Readonly<Record<string, PartDecl>>;
}

export type PageTable = Readonly<Record<string, PageDecl>>;
