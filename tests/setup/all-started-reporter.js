/**
 * A jest reporter for `npm test` (scripts/test.ts): tells the parent process, once, when the run has
 * started its last test file. From then on fewer files are running than there are workers, and the
 * parent starts the e2e and browser run beside this one's tail. Silent otherwise; plain JS on purpose:
 * jest loads it without any transform.
 */
export default class AllStartedReporter {
  total = 0;
  started = 0;

  constructor() {
    // The channel to scripts/test.ts must not keep jest alive once its run is over.
    process.channel?.unref();
  }

  onRunStart(results) {
    this.total = results.numTotalTestSuites;
  }

  onTestFileStart() {
    this.started += 1;
    if (this.started === this.total) process.send?.('all-started');
  }

  getLastError() {
    return undefined;
  }
}
