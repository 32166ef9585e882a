/** Global setup of the integration project: the sources compiled for the processes tests start (test-build.ts). */
import { buildForTests } from './test-build.js';

export default async function setup(): Promise<void> {
  await buildForTests();
}
