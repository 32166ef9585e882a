/** Record schemas of the Chain Data Query Service (spec section 2). */
import { arrayOf, pattern, schema, type FieldSpec, type Schema } from './language.js';

const DATE8 = pattern(/^\d{8}$/);
const DATE8_OR_NULL = pattern(/^\d{8}$/, true);
const ISO_LOCAL = pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
const AMOUNT = pattern(/^\d+$/);
const SIGNED_AMOUNT = pattern(/^-?\d+$/);
const DECIMAL_AMOUNT = pattern(/^\d+(\.\d+)?$/);

/** 2.1 envelope around any data spec. */
export function envelopeOf(data: FieldSpec, name = 'Envelope'): Schema {
  return schema(name, { code: 'integer', msg: 'string', data });
}

/** Error envelope: code non-zero, data null. */
export const ErrorEnvelope = schema('ErrorEnvelope', { code: 'integer', msg: 'string', data: 'null' });

export const Token = schema('Token', {
  token_name: 'string',
  description: 'string',
  contract: 'string',
  total: AMOUNT,
  token_decimals: 'integer',
});

/** 2.2 paged result with items of `item`; server_timestamp / token per operation. */
export function pagedOf(
  item: FieldSpec,
  opts: { serverTimestamp?: boolean; token?: boolean } = {},
  name = 'Paged',
): Schema {
  const fields: Record<string, FieldSpec> = {
    next: 'null|string',
    previous: 'null|string',
    count: 'integer',
    total_page: 'integer',
    current_page: 'integer',
    list: arrayOf(item),
  };
  if (opts.serverTimestamp) fields.server_timestamp = 'integer';
  if (opts.token) fields.token = Token;
  return schema(name, fields);
}

/** 2.3.1 */
export const Transaction = schema('Transaction', {
  tx_hash: 'string',
  chainId: 'integer',
  address_from: 'string',
  address_to: 'string',
  value: AMOUNT,
  nonce: 'integer',
  timestamp: 'integer',
  block_timestamp: 'null|integer',
  block_date: DATE8_OR_NULL,
  tx_type: 'string',
  gas_price: AMOUNT,
  gas_limit: 'integer',
  gas_used: 'null|integer',
  contract_address: 'null|string',
  status: 'integer',
  execute_error: 'string',
  execute_result: 'string',
  block_height: 'null|integer',
});

const txDetailFields: Record<string, FieldSpec> = {
  tx_hash: 'string',
  address_main: 'string',
  address_supporting: 'string',
  direction: 'string',
  tx_type: 'string',
  timestamp: 'integer',
  // null while pending (simulator and, presumably, the real service)
  block_timestamp: 'null|integer',
  contract_address: 'string',
  tx_value: AMOUNT,
  real_value: AMOUNT,
  gas_price: AMOUNT,
  gas_limit: 'integer',
  gas_used: 'null|integer',
  status: 'integer',
  block_height: 'null|integer',
  is_nrc20: 'boolean',
};

/** 2.3.2, data of tx/detail */
export const TxDetail = schema('TxDetail', {
  ext_info: schema('ExtInfo', { data: 'string', execute_error: 'string', execute_result: 'string' }),
  ...txDetailFields,
});

/** 2.3.2, item of token/tx/list */
export const TokenTx = schema('TokenTx', { token: Token, ...txDetailFields });

/** 2.3.3 */
const Nrc20Tx = schema('Nrc20Tx', {
  hash: 'string',
  block: schema('Nrc20Block', { hash: 'string', height: 'integer' }),
  from: schema('Nrc20From', { hash: 'string' }),
  to: schema('Nrc20To', { hash: 'string' }),
  status: 'integer',
  value: AMOUNT,
  nonce: 'integer',
  timestamp: 'integer',
  currentTimestamp: 'integer',
  timeDiff: 'integer',
  type: 'string',
  gasPrice: AMOUNT,
  gasLimit: AMOUNT,
  gasUsed: AMOUNT,
  data: 'string',
  contractAddress: 'string',
  executeError: 'string',
  tokenName: 'string',
  decimal: 'integer',
  txFee: AMOUNT,
});

/** Result object of tx/nrc20 */
export const Nrc20Result = schema('Nrc20Result', {
  txnList: arrayOf(Nrc20Tx),
  totalPage: 'integer',
  maxDisplayCnt: 'integer',
  currentPage: 'integer',
  txnCnt: 'integer',
});

const blockCommon: Record<string, FieldSpec> = {
  block_hash: 'string',
  parent_hash: 'string',
  height: 'integer',
  tx_count: 'integer',
  nonce: 'integer',
  coinbase: 'string',
  timestamp: 'integer',
  chain_id: 'integer',
  miner: 'string',
  is_finality: 'boolean',
};

/** 2.3.4 */
export const Block = schema('Block', {
  ...blockCommon,
  state_root: 'string',
  txs_root: 'string',
  events_root: 'string',
  randomSeed: 'string',
  randomProof: 'string',
});

const NodeInfo = schema('NodeInfo', {
  avatar: 'string',
  email: 'string',
  id: 'string',
  'income-distribute': 'string',
  name: 'string',
  server: 'string',
  summary: 'string',
  telegram: 'null|string',
  twitter: 'string',
  website: 'null|string',
  wechat: 'null|string',
});

/** 2.3.5 */
export const BlockDetail = schema('BlockDetail', {
  ...blockCommon,
  server_timestamp: 'integer',
  gas_info: schema('GasInfo', { gas_limit: AMOUNT, gas_reward: AMOUNT, avg_gas_price: AMOUNT }),
  dynasty: arrayOf('string'),
  node: schema('Node', { period: 'integer', info: NodeInfo }),
});

/** 2.3.6 */
export const Contract = schema('Contract', {
  block_timestamp: 'integer',
  type: 'string',
  address: 'string',
  creator_address: 'string',
  deploy_tx_hash: 'string',
  block_height: 'integer',
});

/** 2.3.8 */
export const TokenHolder = schema('TokenHolder', { address: 'string', contract: 'string', balance: AMOUNT });

/** 2.3.9 */
export const Holder = schema('Holder', {
  tx_count: 'integer',
  percentage: 'number',
  address: 'string',
  nonce: 'integer',
  type: 'integer',
  balance: AMOUNT,
  date_of_found: DATE8,
  rank: 'number',
});

/** 2.3.10 */
export const NaxRecord = schema('NaxRecord', {
  nas_price: 'number',
  nax_price: 'number',
  start_timestamp: ISO_LOCAL,
  end_timestamp: ISO_LOCAL,
  total_distributed_nax: AMOUNT,
  total_destroyed_nax: AMOUNT,
  total_vote_nax: DECIMAL_AMOUNT,
  avg_reward_rate: 'number',
  created_at: ISO_LOCAL,
  stage: 'integer',
  start: 'integer',
  end: 'integer',
  estimate_nax: AMOUNT,
  distributed_nax: AMOUNT,
  destroyed_nax: AMOUNT,
  total_supplied_nax: AMOUNT,
  pledged_nas: AMOUNT,
  total_supplied_nas: AMOUNT,
  status: 'integer',
});

/** 2.3.11 */
export const NaxSummary = schema('NaxSummary', {
  last_distributed_nax: AMOUNT,
  total_distributed_nax: AMOUNT,
  current_pledged_nas: AMOUNT,
  current_total_nas: AMOUNT,
  estimate_nax: AMOUNT,
  end_height: 'integer',
  list: arrayOf(NaxRecord),
});

/** 2.3.12 */
export const NaxProfit = schema('NaxProfit', {
  address: 'string',
  tx_hash: 'string',
  block_timestamp: 'integer',
  profit: SIGNED_AMOUNT,
  stage: 'integer',
  source: 'integer',
  block_height: 'integer',
});

/** 2.3.13; `contract` is {} for a normal address (fields otherwise not specified). */
export const AddressInfo = schema('AddressInfo', {
  contract: 'object',
  address: 'string',
  nonce: 'integer',
  type: 'integer',
  balance: AMOUNT,
  date_of_found: DATE8,
});

/** 2.3.14 */
export const AddressCountItem = schema('AddressCountItem', {
  created_at: ISO_LOCAL,
  updated_at: ISO_LOCAL,
  date: DATE8,
  all_address_count: 'integer',
  contract_count: 'integer',
});

/** 2.3.15 */
export const TxCountItem = schema('TxCountItem', { price: 'number', date: DATE8, transaction_count: 'integer' });

/** 2.3.16 */
export const TxCountToday = schema('TxCountToday', { count: 'integer' });
export const BlockMax = schema('BlockMax', { height: 'number', server_timestamp: 'integer' });
export const ChainSummary = schema('ChainSummary', {
  block_count: 'integer',
  tx_count: 'integer',
  contract_count: 'integer',
  normal_address_count: 'integer',
});
