/**
 * Preloaded (`node --require local/lifeline.cjs`) into the Node children the local runtime starts
 * that are not ours to change (serverless-offline): their standard input is a pipe whose other end
 * the parent holds, and when it closes (the parent exited, crashed, or was killed with SIGKILL, which
 * it cannot catch) the child exits too. Nothing is ever sent on it. CommonJS so that `--require`
 * loads it before anything else, in any Node version we support.
 */
'use strict';

// Worker threads get the same --require (serverless-offline runs each function in one); only the
// main thread has the lifeline, and a worker must not end itself.
//
// A child started as a process group of its own (serverless-offline is) takes its group down with it:
// its esbuild service, in watch mode, is kept alive by the watch and outlived its parent under load
// (found by the SIGKILL test of tests/e2e/local-stack.e2e.test.ts). A process that leads no group of
// its own finds none of its pid to signal (ESRCH) and just exits.
if (require('node:worker_threads').isMainThread) {
  const end = () => {
    try {
      process.kill(-process.pid, 'SIGKILL');
    } catch {
      // not a group leader: nothing of ours to take down
    }
    process.exit(0);
  };
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.stdin.resume();
}
