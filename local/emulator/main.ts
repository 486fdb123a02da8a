/**
 * `npm run emulator`: the cloud emulator as a standalone process for local runs of the service.
 * Defaults are slower than the tests' so the UI shows Creating/Updating states a person can see.
 * EMULATOR_STATE_FILE keeps its platform state across restarts (as `npm start` does in .data/).
 */
import { startEmulator } from './server';

function intFromEnv(key: string, fallback: number): number {
  const raw = process.env[key]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`${key} must be a non-negative integer, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

const emulator = await startEmulator({
  port: intFromEnv('EMULATOR_PORT', 4010),
  host: process.env.EMULATOR_HOST?.trim() || '127.0.0.1',
  lifecycleDelayMs: intFromEnv('EMULATOR_LIFECYCLE_DELAY_MS', 5000),
  responseDelayMs: intFromEnv('EMULATOR_RESPONSE_DELAY_MS', 50),
  region: process.env.EMULATOR_REGION?.trim() || undefined,
  hostedApiKey: process.env.HOSTED_API_KEY?.trim() || undefined,
  stateFile: process.env.EMULATOR_STATE_FILE?.trim() || undefined,
});

console.log(`Cloud emulator listening on ${emulator.url}`);
console.log(`  AWS clients: endpoint ${emulator.url}   hosted API: ${emulator.url}/v1   control: ${emulator.url}/_emulator/state`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received, stopping the emulator`);
  await emulator.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
