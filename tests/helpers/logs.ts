import { logger } from '../../core/observability';

/** Everything the service writes to stdout and stderr while `run` executes, at the chattiest level. */
export async function captureLogs(run: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const grab = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  logger.setLogLevel('DEBUG');
  process.stdout.write = grab;
  process.stderr.write = grab;
  try {
    await run();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    logger.setLogLevel('SILENT');
  }
  return chunks.join('');
}
