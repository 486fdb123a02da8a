/**
 * A jest reporter for `npm test` (scripts/test.ts): tells the parent process, once, when the run has
 * started all its test files but the last `E2E_BESIDE_LAST_FILES` (30 unless set; 0: its very last).
 * jest starts the longest files first (by their last durations, or by size in a fresh clone), so
 * those last ones are small files, about as much work for one core as the e2e and browser run takes
 * (three minutes): the parent starts that run then, beside this one's tail, and the two end about
 * together. Silent otherwise; plain JS on purpose: jest loads it without any transform.
 */
export default class TailReporter {
  total = 0;
  started = 0;
  sent = false;
  beside = Math.max(0, Number(process.env.E2E_BESIDE_LAST_FILES ?? 30) || 0);

  constructor() {
    // The channel to scripts/test.ts must not keep jest alive once its run is over.
    process.channel?.unref();
  }

  onRunStart(results) {
    this.total = results.numTotalTestSuites;
  }

  onTestFileStart() {
    this.started += 1;
    if (!this.sent && this.total - this.started <= this.beside) {
      this.sent = true;
      process.send?.('tail');
    }
  }

  getLastError() {
    return undefined;
  }
}
