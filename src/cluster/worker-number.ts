/** This process's worker number (1..N) when it is a cluster worker started by the primary; null otherwise. */
import cluster from 'node:cluster';
import { WORKER_ENV } from './protocol.js';

export function workerNumber(): number | null {
  if (!cluster.isWorker) return null;
  const n = Number(process.env[WORKER_ENV]);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}
