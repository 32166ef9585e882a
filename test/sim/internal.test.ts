/**
 * Internal transfers (`internalTransfers`): a paying call raises its beneficiary's address/info
 * balance on the block that includes it, while no list and no touched set names the beneficiary;
 * off, every answer keeps its bytes.
 */
import { built } from '../helpers/test-build.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalCreditsAt, normalAddress, touchedAt, type SimulatorHandle } from '../../src/sim/index.js';
import { internalCreditIndexes, internalCreditsUpTo } from '../../src/sim/records/internal.js';
import { extrasBefore } from '../../src/sim/records/txcount.js';
import { Ledger } from './ledger-kit.js';
import { get, getJson, sim, type Paged } from './util.js';

const SEED = 1;
const WEI = 10n ** 16n;

interface Info {
  nonce: number;
  balance: string;
  date_of_found: string;
}
interface Tx {
  address_from: string;
  address_to: string;
  contract_address: string;
}

/** The first block above `from` whose internal transfers credit an address it does not name. */
function creditedBlock(from: number): { h: number; address: string } {
  for (let h = from + 1; h < from + 500; h++) {
    const named = touchedAt(SEED, h).addresses;
    const a = internalCreditsAt(SEED, h).find((x) => !named.has(x));
    if (a !== undefined) return { h, address: a };
  }
  throw new Error('no credited block found');
}

const stripStamp = (t: string): string => t.replace(/"server_timestamp":\d+/g, '"server_timestamp":0');

describe('internal transfers, on', () => {
  const { h, address } = creditedBlock(4_842_000);
  let on: SimulatorHandle;
  let off: SimulatorHandle;
  beforeAll(async () => {
    [on, off] = await Promise.all([sim({ startHeight: h - 1, internalTransfers: true }), sim({ startHeight: h - 1 })]);
  });
  afterAll(async () => {
    await Promise.all([on.close(), off.close()]);
  });

  it(
    "raise the beneficiary's balance by 10^16 wei exactly on the block with the call, " +
      'nonce unchanged, no list naming it',
    async () => {
      const info = async (s: SimulatorHandle): Promise<Info> =>
        (await getJson<Info>(s.url, '/address/info?address=' + address)).data;
      const list = async (s: SimulatorHandle): Promise<string> =>
        stripStamp((await get(s.url, '/tx/listByAddress?address=' + address + '&page_size=100')).text);
      const [before, offBefore, listBefore] = await Promise.all([info(on), info(off), list(on)]);
      on.chain.advance(1);
      off.chain.advance(1);
      const [after, offAfter, listAfter] = await Promise.all([info(on), info(off), list(on)]);

      expect(BigInt(after.balance) - BigInt(before.balance)).toBe(WEI);
      expect(after.nonce).toBe(before.nonce);
      expect(offAfter).toEqual(offBefore); // the block names it not: without the option nothing moves
      expect(listAfter).toBe(listBefore);
      for (let page = 1; ; page++) {
        const d = (await getJson<Paged<Tx>>(on.url, `/tx/list?block_height=${h}&page_size=100&page=${page}`)).data;
        for (const t of d.list) expect([t.address_from, t.address_to, t.contract_address]).not.toContain(address);
        if (page >= d.total_page) break;
      }
      expect(touchedAt(SEED, h).addresses.has(address)).toBe(false);
    },
  );

  it('count every credit up to the head in the balance: on − off = 10^16 wei × credits', async () => {
    const [a, b] = await Promise.all([
      getJson<Info>(on.url, '/address/info?address=' + address),
      getJson<Info>(off.url, '/address/info?address=' + address),
    ]);
    const index = internalCreditIndexes(SEED, h).find((i) => normalAddress(SEED, i) === address)!;
    const credits = internalCreditsUpTo(index, extrasBefore(SEED, on.chain.head() + 1) - 1);
    expect(credits).toBeGreaterThan(1);
    expect(BigInt(a.data.balance) - BigInt(b.data.balance)).toBe(WEI * BigInt(credits));
  });
});

describe('internal transfers, CLI', () => {
  it('--internal-transfers turns them on in the standalone simulator', async () => {
    const { h, address } = creditedBlock(4_842_000);
    const args = [
      built('src/sim/cli.ts'),
      '--port',
      '0',
      '--block-interval',
      '0',
      '--start-time',
      'fixture',
      '--start-height',
      String(h),
    ];
    const urlOf = async (extra: string[]): Promise<{ url: string; stop: () => Promise<void> }> => {
      const child = spawn(process.execPath, [...args, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8');
      const exited = once(child, 'exit').then(([code]) => {
        throw new Error(`simulator exited (${String(code)}) before listening`);
      });
      while (!out.includes('\n')) out += String((await Promise.race([once(child.stdout, 'data'), exited]))[0]);
      exited.catch(() => undefined);
      const stop = async (): Promise<void> => {
        child.kill('SIGTERM');
        if (child.exitCode === null) await once(child, 'exit');
      };
      return { url: /listening on (\S+)/.exec(out)![1]!, stop };
    };
    const [on, off] = await Promise.all([urlOf(['--internal-transfers']), urlOf([])]);
    try {
      const [a, b] = await Promise.all(
        [on.url, off.url].map((u) => getJson<Info>(u, '/address/info?address=' + address)),
      );
      expect(BigInt(a!.data.balance) - BigInt(b!.data.balance)).toBeGreaterThanOrEqual(WEI);
      const l = new Ledger(SEED, h, true);
      expect(a!.data).toEqual(l.get<Info>('address/info', { address }));
    } finally {
      await Promise.all([on.stop(), off.stop()]);
    }
  }, 30_000);
});

describe('internal transfers, closed form', () => {
  it('agrees with a brute-force sum over blocks, in the balance address/info shows', () => {
    const on = new Ledger(SEED, 1, true);
    const off = new Ledger(SEED, 1);
    const sample = [16, 17, 40, 515, 1000, 1039];
    const count = new Map(sample.map((a) => [a, 0]));
    const checks = [50, 2000, 9000, 9400, 12_000, 19_000, 28_000];
    let checked = 0;
    for (let h = 1; h <= checks.at(-1)!; h++) {
      for (const a of internalCreditIndexes(SEED, h)) if (count.has(a)) count.set(a, count.get(a)! + 1);
      if (!checks.includes(h)) continue;
      on.chain.advance(h - on.chain.head());
      off.chain.advance(h - off.chain.head());
      for (const a of sample) {
        const x = normalAddress(SEED, a);
        const [bOn, bOff] = [
          on.get<Info>('address/info', { address: x }),
          off.get<Info>('address/info', { address: x }),
        ];
        expect(internalCreditsUpTo(a, extrasBefore(SEED, h + 1) - 1), `${a} at ${h}`).toBe(count.get(a));
        expect(BigInt(bOn.balance) - BigInt(bOff.balance), `${a} at ${h}`).toBe(WEI * BigInt(count.get(a)!));
        checked += count.get(a)!;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(internalCreditsUpTo(1040, 1e9)).toBe(0);
    expect(internalCreditsUpTo(15, 1e9)).toBe(0);
  });
});

describe('internal transfers, off', () => {
  it('leaves address/info byte-identical to the simulator without the option', () => {
    const digest = (internal: boolean | undefined): string => {
      const hash = createHash('sha256');
      for (const head of [3, 9000, 4_842_000, 4_842_777]) {
        const l = new Ledger(SEED, head, internal);
        for (let a = 0; a < 1100; a += 3) hash.update(l.raw('address/info', { address: normalAddress(SEED, a) }));
      }
      return hash.digest('hex');
    };
    // computed with the simulator before the option existed
    const before = '509d5239a49a599a556aafc6c0f534a680ade1228d7526f34ea39bd7321645d1';
    expect(digest(undefined)).toBe(before);
    expect(digest(false)).toBe(before);
    expect(digest(true)).not.toBe(before);
  });
});
