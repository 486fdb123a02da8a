/**
 * Preloaded into every Node process and worker thread of a profiled `npm start`
 * (NODE_OPTIONS=--require bench/cpu-profile.cjs, BENCH_CPU_PROFILE_DIR set; bench/profile.ts): the V8
 * CPU profiler of each thread, started and stopped by the benchmark through a file, so only the
 * measured window is profiled. `node --cpu-prof` cannot do this: it is not allowed in NODE_OPTIONS,
 * and it profiles from start to exit.
 *
 * The file `<dir>/window` holds a label while a window is open and nothing once it is closed; each
 * thread polls it (every 200 ms, an unref'd timer) and writes `<label>.<pid>.<thread>.cpuprofile`
 * when it closes. CommonJS so that `--require` loads it in any process and worker.
 */
'use strict';
const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const fs = require('node:fs');
  const path = require('node:path');
  const inspector = require('node:inspector');
  const { threadId, isMainThread } = require('node:worker_threads');
  const window = path.join(dir, 'window');
  const role = isMainThread ? 'main' : `worker${threadId}`;
  const script = path.basename(process.argv[1] ?? 'node').replace(/[^\w.-]/g, '_');
  let session;
  let label = '';
  const read = () => {
    try {
      return fs.readFileSync(window, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const timer = setInterval(() => {
    const wanted = read();
    if (wanted && !session) {
      label = wanted;
      session = new inspector.Session();
      session.connect();
      session.post('Profiler.enable');
      session.post('Profiler.setSamplingInterval', { interval: 500 });
      session.post('Profiler.start');
    } else if (!wanted && session) {
      const s = session;
      session = undefined;
      s.post('Profiler.stop', (err, result) => {
        if (!err && result) {
          const file = path.join(dir, `${label}.${script}.${process.pid}.${role}.cpuprofile`);
          fs.writeFileSync(file, JSON.stringify(result.profile));
        }
        s.disconnect();
      });
    }
  }, 200);
  timer.unref();
}
