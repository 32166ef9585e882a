/**
 * Integration tests get one retry (vitest.config.ts): they run real processes,
 * servers and browsers on two cores shared by four workers, and a deadline
 * can be missed under that load. A retry must not hide a defect: a test that
 * passed only on its retry is listed at the end of the run, with its file, so
 * every flaky run is seen (a deterministic defect fails both tries).
 */
import type { Reporter, TestCase } from 'vitest/node';

export default class FlakyReporter implements Reporter {
  readonly #flaky: string[] = [];

  onTestCaseResult(test: TestCase): void {
    if (test.diagnostic()?.flaky === true) this.#flaky.push(`${test.module.moduleId} > ${test.fullName}`);
  }

  onTestRunEnd(): void {
    if (this.#flaky.length === 0) return;
    const list = this.#flaky.map((name) => `  - ${name}`).join('\n');
    process.stderr.write(`\nFLAKY: ${this.#flaky.length} test(s) failed once and passed on their retry:\n${list}\n\n`);
  }
}
