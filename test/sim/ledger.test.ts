/** Ledger rules of the simulator: nonces, first appearance, contracts' deploy txs, token holders. */
import { describe, expect, it } from 'vitest';
import { contractAddress, normalAddress, TOKENS } from '../../src/sim/index.js';
import { Ledger, type TxDetail } from './ledger-kit.js';
import { getJson, sim, type Paged } from './util.js';
import { BLOCK_REWARD, ENDOWMENT } from '../../src/sim/records/value.js';

const SEED = 1;
const HEAD = 4_842_000;

interface Tx {
  tx_hash: string;
  address_from: string;
  address_to: string;
  nonce: number;
  status: number;
  block_height: number | null;
  value: string;
  gas_price: string;
  gas_used: number | null;
}

const WEI_PER_UNIT = 10n ** 14n;

/** What the mined txs of a list do to addr's native balance (in wei). */
function effect(txs: Tx[], addr: string, from: number, to: number): bigint {
  let d = 0n;
  for (const t of txs) {
    if (t.status === 2 || t.block_height! <= from || t.block_height! > to) continue;
    const moved = t.status === 1 ? BigInt(t.value) : 0n;
    if (t.address_from === addr) d -= moved + BigInt(t.gas_price) * BigInt(t.gas_used!);
    if (t.address_to === addr && t.address_from !== addr) d += moved;
  }
  return d;
}
interface Page<T> {
  count: number;
  total_page: number;
  list: T[];
}
interface Info {
  nonce: number;
  balance: string;
  date_of_found: string;
  contract: Record<string, unknown>;
}

/** The whole list of an address, oldest first. */
function history(l: Ledger, address: string, nrc: boolean): Tx[] {
  const out: Tx[] = [];
  for (let page = 1; ; page++) {
    const q = { address, is_nrc20: String(nrc), page_size: '100', page: String(page) };
    const d = l.get<Page<Tx>>('tx/listByAddress', q);
    out.push(...d.list);
    if (page >= d.total_page) return out.reverse();
  }
}

describe('the ledger', () => {
  it(
    "nonces count an address's sent txs, slot and other, " + 'NRC20 or not; address/info nonce = confirmed sent txs',
    () => {
      const l = new Ledger(SEED, HEAD);
      for (const a of [5000, 20, 16]) {
        const addr = normalAddress(SEED, a);
        const all = [...history(l, addr, false), ...history(l, addr, true)];
        const sent = all.filter((t) => t.address_from === addr).sort((x, y) => x.nonce - y.nonce);
        expect(sent.length, `address ${a}`).toBeGreaterThan(5);
        expect(sent.map((t) => t.nonce)).toEqual(sent.map((_, k) => k + 1));
        expect(l.get<Info>('address/info', { address: addr }).nonce).toBe(sent.filter((t) => t.status !== 2).length);
      }
    },
    20_000,
  );

  it(
    'an address appears with the first tx that names it; ' +
      'before, an empty account that does not depend on the head',
    () => {
      const addr = normalAddress(SEED, 140_000); // receives only
      const first = history(new Ledger(SEED, HEAD), addr, false).find((t) => t.status !== 2)!;
      const f = first.block_height!;
      const unseen = new Ledger(SEED, f - 1).get<Info>('address/info', { address: addr });
      expect(unseen).toMatchObject({ nonce: 0, balance: '0', date_of_found: '20180331', contract: {} });
      expect(new Ledger(SEED, f - 500).get<Info>('address/info', { address: addr })).toEqual(unseen);
      const seen = new Ledger(SEED, f);
      const info = seen.get<Info>('address/info', { address: addr });
      const block = seen.get<{ timestamp: number }>('block/detail', { h: String(f) });
      expect(info.date_of_found).toBe(new Date(block.timestamp * 1000).toISOString().slice(0, 10).replace(/-/g, ''));
      expect(info.balance).not.toBe('0');
    },
  );

  it('a contract is deployed by a tx naming it (contract_address); its account does not depend on the head', () => {
    const l = new Ledger(SEED, HEAD);
    const newest =
      l.get<Page<{ address: string; deploy_tx_hash: string; creator_address: string; block_height: number }>>(
        'contracts',
      ).list[0]!;
    const d = l.get<TxDetail & { tx_type: string; block_height: number }>('tx/detail', { hash: newest.deploy_tx_hash });
    expect(d).toMatchObject({
      tx_type: 'deploy',
      contract_address: newest.address,
      address_main: newest.creator_address,
    });
    expect(d.block_height).toBe(newest.block_height);
    const c = contractAddress(SEED, 7);
    const later = new Ledger(SEED, HEAD + 5000);
    expect(later.raw('address/info', { address: c })).toBe(l.raw('address/info', { address: c }));
    for (const t of TOKENS) {
      const info = l.get<Info>('address/info', { address: t.contract });
      const deploy = l.get<TxDetail>('tx/detail', { hash: info.contract['deploy_tx_hash'] as string });
      expect(deploy.contract_address, t.name).toBe(t.contract);
    }
  });

  it('token holders follow from transfers: one holder per confirmed transfer, the newest recipient ranked last', () => {
    const l = new Ledger(SEED, HEAD);
    for (const t of TOKENS) {
      const txs = l.get<Page<{ address_supporting: string; status: number }>>('token/tx/list', { token: t.name });
      const holders = l.get<Page<{ address: string }>>('token/holders', { token: t.name, page_size: '1', page: '1' });
      expect(holders.count - txs.count, t.name).toBe(4096);
      const last = l.get<Page<{ address: string }>>('token/holders', {
        token: t.name,
        page_size: '1',
        page: String(holders.count),
      });
      expect(last.list[0]!.address).toBe(txs.list[0]!.address_supporting);
      expect(txs.list.every((x) => x.status === 1)).toBe(true);
    }
  });

  it('pages tile the merged list at any depth (pending on top, then mined, newest first)', () => {
    const l = new Ledger(SEED, HEAD);
    for (const addr of [
      normalAddress(SEED, 3),
      contractAddress(SEED, 7),
      normalAddress(SEED, 20),
      TOKENS[2]!.contract,
    ]) {
      const nrc = String(addr === TOKENS[2]!.contract);
      const count = l.get<Page<Tx>>('tx/listByAddress', { address: addr, is_nrc20: nrc }).count;
      for (const at of [0, 1, 13, 65, 66, 200, 5_000, 77_777, count - 101, count - 1].filter(
        (x) => x >= 0 && x < count,
      )) {
        const big = l.get<Page<Tx>>('tx/listByAddress', {
          address: addr,
          is_nrc20: nrc,
          page_size: '100',
          page: String(Math.floor(at / 100) + 1),
        });
        const one = l.get<Page<Tx>>('tx/listByAddress', {
          address: addr,
          is_nrc20: nrc,
          page_size: '1',
          page: String(at + 1),
        });
        expect(one.list[0]!.tx_hash, `${addr} item ${at}`).toBe(big.list[at % 100]!.tx_hash);
        const h = big.list.map((t) => (t.block_height === null ? Infinity : t.block_height));
        expect(h, `${addr} newest first`).toEqual([...h].sort((x, y) => y - x));
      }
    }
  });

  it("over HTTP: a pending tx is in its recipient's list with status 2, then the same tx mined", async () => {
    const s = await sim();
    try {
      const pool = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list/pending?page_size=100');
      const hash = pool.data.list[pool.data.list.length - 1]!.tx_hash;
      const d = (await getJson<TxDetail>(s.url, '/tx/detail?hash=' + hash)).data;
      const find = async (): Promise<{ tx_hash: string; status: number } | undefined> => {
        const q = `/tx/listByAddress?address=${d.address_supporting}&is_nrc20=${String(d.is_nrc20)}&page_size=100`;
        return (await getJson<Paged<{ tx_hash: string; status: number }>>(s.url, q)).data.list.find(
          (t) => t.tx_hash === hash,
        );
      };
      expect((await find())?.status).toBe(2);
      s.chain.advance(40);
      expect([0, 1]).toContain((await find())?.status);
    } finally {
      await s.close();
    }
  });

  it(
    'balances are sums: endowment + rewards + received - sent ' +
      '- fees (failed transfers move nothing, pay their fee)',
    () => {
      const l = new Ledger(SEED, HEAD);
      const balance = (x: Ledger, a: string): bigint => BigInt(x.get<Info>('address/info', { address: a }).balance);
      // whole histories: senders of every kind (binary, deploys, NRC20, calls, pods) and a receiver
      for (const a of [20, 16, 4118, 4119, 5000, 140_000]) {
        const addr = normalAddress(SEED, a);
        const txs = [...history(l, addr, false), ...history(l, addr, true)];
        const endowment = a < 135_184 ? BigInt(ENDOWMENT) * WEI_PER_UNIT : 0n;
        expect(balance(l, addr), `address ${a}`).toBe(endowment + effect(txs, addr, 0, HEAD));
      }
      // over 3000 blocks: a hot address and a block producer (rewarded as coinbase)
      const later = new Ledger(SEED, HEAD + 3000);
      const producer = l.get<{ coinbase: string }>('block/detail', { h: String(HEAD) }).coinbase;
      for (const addr of [normalAddress(SEED, 3), producer]) {
        let rewards = 0n;
        for (let h = HEAD + 1; h <= HEAD + 3000; h++) {
          if (later.get<{ coinbase: string }>('block/detail', { h: String(h) }).coinbase === addr)
            rewards += BigInt(BLOCK_REWARD) * WEI_PER_UNIT;
        }
        const q = { address: addr, page_size: '100' };
        const recent = [
          ...later.get<Page<Tx>>('tx/listByAddress', q).list,
          ...later.get<Page<Tx>>('tx/listByAddress', { ...q, page: '2' }).list,
        ];
        // the window is covered
        expect(recent.some((t) => t.block_height !== null && t.block_height <= HEAD)).toBe(true);
        expect(balance(later, addr) - balance(l, addr), addr).toBe(rewards + effect(recent, addr, HEAD, HEAD + 3000));
      }
    },
  );
});
