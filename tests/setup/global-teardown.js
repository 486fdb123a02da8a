/** Stops the test runtime started by global-setup.js and everything it started. */
export default async function globalTeardown() {
  const child = globalThis.__TEST_RUNTIME__;
  if (!child || child.exitCode !== null) return;
  await new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve();
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      // Sweep the runtime's process group (DynamoDB Local, serverless-offline) whatever happened.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve();
    });
    child.kill('SIGTERM');
  });
}
