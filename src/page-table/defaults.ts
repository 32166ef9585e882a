/**
 * The page table: each page of `/pages/<name>` is a set of parts, each part one
 * catalogue endpoint whose query comes from the page's parameters or from
 * another part's data (see src/page-table/types.ts for the template syntax).
 * CONFIG_FILE may add pages or replace these under `pages:`.
 */
import type { PageTable } from './types.js';

const FIRST = { page: '1', page_size: '{page_size}' } as const;

export const PAGES: PageTable = {
  home: {
    params: { page_size: 'optional' },
    parts: {
      head: { endpoint: 'block/max', required: true },
      blocks: { endpoint: 'block/list', query: FIRST },
      txs: { endpoint: 'tx/list', query: FIRST },
      pending: { endpoint: 'tx/list/pending', query: FIRST },
      today: { endpoint: 'tx/count/today' },
      history: { endpoint: 'tx/count/history' },
      summary: { endpoint: 'chain/summary' },
      nax: { endpoint: 'nax/summary' },
    },
  },
  block: {
    params: { h: 'required', page_size: 'optional' },
    parts: {
      block: { endpoint: 'block/detail', query: { h: '{h}' }, required: true },
      // In parallel with the block when h is a height; after it when h is a hash.
      txs: { endpoint: 'tx/list', query: { block_height: '{h:height}|{block.height}', ...FIRST } },
      head: { endpoint: 'block/max' },
    },
  },
  tx: {
    params: { hash: 'required' },
    parts: {
      tx: { endpoint: 'tx/detail', query: { hash: '{hash}' }, required: true },
      block: { endpoint: 'block/detail', query: { h: '{tx.block_height}' } },
      head: { endpoint: 'block/max' },
      // token/detail takes a name; an NRC20 transfer names its contract: look it up in token/list.
      tokens: { endpoint: 'token/list', when: '{tx.is_nrc20}', internal: true },
      token: { endpoint: 'token/detail', query: { token: '{tokens[contract=tx.contract_address].token_name}' } },
    },
  },
  address: {
    params: { address: 'required', page_size: 'optional' },
    parts: {
      info: { endpoint: 'address/info', query: { address: '{address}' }, required: true },
      txs: { endpoint: 'tx/listByAddress', query: { address: '{address}', ...FIRST } },
      nrc20: { endpoint: 'tx/nrc20', query: { address: '{address}', ...FIRST } },
      profits: { endpoint: 'nax/profits', query: { address: '{address}', ...FIRST } },
    },
  },
  token: {
    params: { token: 'optional', contract: 'optional', page_size: 'optional' },
    exactlyOne: ['token', 'contract'],
    parts: {
      // token/detail takes a name: with a contract, the token comes from the first list's `token`.
      detail: { endpoint: 'token/detail', query: { token: '{token}|{txs.token.token_name}' }, required: true },
      txs: { endpoint: 'token/tx/list', query: { token: '{token}|', contract: '{contract}|', ...FIRST } },
      holders: { endpoint: 'token/holders', query: { token: '{token}|', contract: '{contract}|', ...FIRST } },
    },
  },
};
