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
if (require('node:worker_threads').isMainThread) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
