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
  // The stacks' injectLambdaContext sets the level back to the configured one at each warm
  // invocation (Powertools' debug sampling, refreshSampleRateCalculation): held at DEBUG meanwhile.
  const refresh = Object.getOwnPropertyDescriptor(logger, 'refreshSampleRateCalculation');
  logger.refreshSampleRateCalculation = () => undefined;
  logger.setLogLevel('DEBUG');
  process.stdout.write = grab;
  process.stderr.write = grab;
  try {
    await run();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    if (refresh) Object.defineProperty(logger, 'refreshSampleRateCalculation', refresh);
    else delete (logger as Partial<typeof logger>).refreshSampleRateCalculation;
    logger.setLogLevel('SILENT');
  }
  return chunks.join('');
}
