import { config } from '../../core/config';

/**
 * How long a dedicated endpoint's state change takes, in the words people read in the answers to a
 * deploy or a control ("its status reads Creating for about 5 seconds"): the platform's real time,
 * SageMaker's 5 to 10 minutes unless the service is told otherwise (the local emulator's delay under
 * `npm start`: DEDICATED_STATE_CHANGE_SECONDS).
 */
export function stateChangeTime(): string {
  return stateChangeWords(config.dedicated.stateChangeSeconds);
}

/** The words for `seconds` (undefined: not configured, SageMaker's usual time). */
export function stateChangeWords(seconds: number | undefined): string {
  if (seconds === undefined) return '5 to 10 minutes';
  if (seconds < 2) return 'a moment';
  if (seconds < 90) return `about ${seconds} seconds`;
  return `about ${Math.round(seconds / 60)} minutes`;
}
