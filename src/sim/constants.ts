/** Fixed parameters of the simulated chain (see README.md for the rationale). */

/**
 * Chain time of block h is GENESIS_TIME + h * BLOCK_SECONDS (Unix seconds). Height 4842132 ⇒ 1595158875, as recorded.
 */
export const GENESIS_TIME = 1522526895;
export const BLOCK_SECONDS = 15;
export const BLOCKS_PER_DAY = 86400 / BLOCK_SECONDS; // 5760
export const CHAIN_ID = 1;
/**
 * NAX stage s covers [(s + NAX_STAGE_OFFSET) * 6000, (s + NAX_STAGE_OFFSET + 1) * 6000). Stage 298 = 4836000..4842000.
 */
export const NAX_STAGE_BLOCKS = 6000;
export const NAX_STAGE_OFFSET = 508;
/** Transactions of blocks head+1 .. head+PENDING_WINDOW may be pending (those that already entered the pool). */
export const PENDING_WINDOW = 40;
/** chain/summary's normal_address_count is head / ADDRESS_EVERY_BLOCKS + 1 (a global statistic). */
export const ADDRESS_EVERY_BLOCKS = 14;
export const MAX_PAGE_SIZE = 100;
export const HOLDERS_MAX_PAGES = 400;
export const NRC20_MAX_DISPLAY = 500;

export interface TokenDef {
  readonly index: number;
  readonly name: string;
  readonly description: string;
  readonly contract: string;
  readonly total: string;
  readonly decimals: number;
  /** holders the recording showed (the simulator's count follows its transfers) */
  readonly holders: number;
  /** cached JSON text of the Token record */
  readonly json: string;
}

function token(
  index: number,
  name: string,
  description: string,
  contract: string,
  total: string,
  decimals: number,
  holders: number,
): TokenDef {
  const json =
    '{"token_name":' +
    JSON.stringify(name) +
    ',"description":' +
    JSON.stringify(description) +
    ',"contract":"' +
    contract +
    '","total":"' +
    total +
    '","token_decimals":' +
    decimals +
    '}';
  return { index, name, description, contract, total, decimals, holders, json };
}

/** The six NRC20 tokens exactly as the recorded token/list. */
export const TOKENS: readonly TokenDef[] = [
  token(0, 'ATP', 'ATP-DESC', 'n1zUNqeBPvsyrw5zxp9mKcDdLTjuaEL7s39', '10000000000000000000000000000', 18, 5210),
  token(1, 'WITI', 'WITI-DESC', 'n1hiWG7Ce8HhTaJGzSJoAaJ9w1CJd7Do2rm', '200000000000000000', 8, 812),
  token(2, 'NAT', 'NAT', 'n1mpgNi6KKdSzr7i5Ma7JsG5yPY9knf9He7', '100000000000000000000000000000', 18, 20544),
  token(3, 'WICM', 'WITTICISM TOKEN', 'n1jJHWrXMysNm7odsUed3RGddiEH1jbJXtt', '200000000000000000000000000', 18, 377),
  token(4, 'NAX', 'NAX', 'n1etmdwczuAUCnMMvpGasfi8kwUbb2ddvRJ', '10000000000000000000', 9, 1399),
  token(5, 'MRH2', 'MRH2', 'n1pxpisjJMsnVLrqHBnS52o8wsuMUsycfDV', '1000000000000000000000000000', 18, 2087),
];

export const TOKEN_LIST_JSON = '[' + TOKENS.map((t) => t.json).join(',') + ']';

export function tokenByName(name: string): TokenDef | undefined {
  for (const t of TOKENS) if (t.name === name) return t;
  return undefined;
}
export function tokenByContract(contract: string): TokenDef | undefined {
  for (const t of TOKENS) if (t.contract === contract) return t;
  return undefined;
}

/** Free-text operator descriptions used for block/detail node.info (nulls included, as recorded). */
export const NODE_INFOS: readonly Record<string, string | null>[] = [
  {
    avatar: 'vko6lukmtl.png',
    email: 'support@keysinteractive.com',
    id: 'keys01',
    'income-distribute':
      'We will distribute 80% of the block rewards back to our ' +
      'voters.\n\nPayout frequency is weekly (every 168 polling cycle).',
    name: 'Keys | Share 80%',
    server: 'Memory: 32GB of RAM\nStorage: 1TB SSD\nCPU: 64-bit\nProcessor: 8 cores (3.2 GHz each)\nNetwork: 1 Gbps',
    summary:
      'We provide staking/validation services for Proof of Stake networks. ' +
      '\n\nOur primary goal is stable and secure block production.',
    telegram: null,
    twitter: 'keys_tech',
    website: null,
    wechat: null,
  },
  {
    avatar: 'a1b2c3d4e5.jpg',
    email: 'node@starlight.example',
    id: 'starlight',
    'income-distribute': '100% of rewards are shared with voters, paid daily.',
    name: 'Starlight “全节点”',
    server: 'AWS c5.2xlarge, 16GB RAM, 500GB NVMe',
    summary: 'Community node run since 2019. Emoji welcome 🚀 and "quotes" too.',
    telegram: '@starlight_node',
    twitter: 'starlight',
    website: 'https://starlight.example',
    wechat: null,
  },
  {
    avatar: 'default.png',
    email: 'ops@nebula-garden.example',
    id: 'garden',
    'income-distribute': 'Share 50%\tweekly',
    name: 'Nebula Garden',
    server: 'bare metal\\rack 7',
    summary: 'Long-running node.',
    telegram: null,
    twitter: '',
    website: null,
    wechat: 'nebula_garden',
  },
];
