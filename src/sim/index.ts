export { startSimulator, SimChain, DEFAULT_START_HEIGHT } from './server.js';
export { genesisFor, parseStartTime } from './time.js';
export type { SimulatorOptions, SimulatorHandle, FaultConfig, FaultKind, StartTime } from './server.js';
export { runEndpoint, ENDPOINTS } from './api.js';
export type { ApiContext, ApiResult, Query } from './api.js';
export { txHash, blockHash, normalAddress, contractAddress, decodeTxHash, decodeAddress } from './ids.js';
export { GENESIS_TIME, BLOCK_SECONDS, TOKENS, MAX_PAGE_SIZE, PENDING_WINDOW } from './constants.js';
export { touchedAt, blockNames, poolEntryNames, txNames } from './records/touched.js';
export type { Touched } from './records/touched.js';
