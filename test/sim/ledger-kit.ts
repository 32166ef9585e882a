/**
 * In-process answers of a simulated chain (runEndpoint: the function the server serves, HTTP
 * left out so that thousands of answers per block stay fast) for the ledger tests.
 */
import { SimChain } from '../../src/sim/chain.js';
import { runEndpoint, type Query } from '../../src/sim/index.js';
import { tokenByContract as tokenOfContract } from '../../src/sim/constants.js';

const NOW = 1_595_157_487_445;

export class Ledger {
  readonly chain: SimChain;

  constructor(seed: number, startHeight: number, internalTransfers?: boolean) {
    this.chain = new SimChain({
      seed,
      startHeight,
      finalityDepth: 15,
      blockIntervalMs: 0,
      ...(internalTransfers === undefined ? {} : { internalTransfers }),
    });
  }

  get<T = Record<string, unknown>>(path: string, q: Query = {}): T {
    const r = runEndpoint(path, q, { chain: this.chain, nowMs: NOW, baseUrl: 'http://sim' });
    if (r.status !== 200) throw new Error(`${path} ${JSON.stringify(q)}: ${r.status} ${r.body}`);
    return (JSON.parse(r.body) as { data: T }).data;
  }

  raw(path: string, q: Query): string {
    return runEndpoint(path, q, { chain: this.chain, nowMs: NOW, baseUrl: 'http://sim' }).body;
  }

  /** The per-address answers of address x, keyed by endpoint (nax/profits kept apart). */
  answers(x: string): Record<string, string> {
    const out: Record<string, string> = {
      info: this.raw('address/info', { address: x }),
      txs: this.raw('tx/listByAddress', { address: x }),
      nrcTxs: this.raw('tx/listByAddress', { address: x, is_nrc20: 'true' }),
      nrc20: this.raw('tx/nrc20', { address: x }),
      profits: this.raw('nax/profits', { address: x }),
    };
    if (tokenOfContract(x)) {
      out['tokenTxs'] = this.raw('token/tx/list', { contract: x });
      out['holders'] = this.raw('token/holders', { contract: x });
    }
    return out;
  }
}

export interface TxDetail {
  tx_hash: string;
  address_main: string;
  address_supporting: string;
  contract_address: string;
  is_nrc20: boolean;
  status: number;
}

/** Hashes of every tx of block h, through tx/list?block_height (all pages). */
export function blockTxHashes(l: Ledger, h: number): string[] {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const d = l.get<{ list: { tx_hash: string }[]; total_page: number }>('tx/list', {
      block_height: String(h),
      page_size: '100',
      page: String(page),
    });
    out.push(...d.list.map((t) => t.tx_hash));
    if (page >= d.total_page) return out;
  }
}

export function pendingHashes(l: Ledger): Set<string> {
  const out = new Set<string>();
  for (let page = 1; ; page++) {
    const d = l.get<{ list: { tx_hash: string }[]; total_page: number }>('tx/list/pending', {
      page_size: '100',
      page: String(page),
    });
    for (const t of d.list) out.add(t.tx_hash);
    if (page >= d.total_page) return out;
  }
}

/** Addresses a tx names, as tx/detail shows them. */
export function namesOf(d: TxDetail): string[] {
  return [d.address_main, d.address_supporting, ...(d.contract_address ? [d.contract_address] : [])];
}
