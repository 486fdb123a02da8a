/**
 * The three platforms, built once per cold start, and the chat dispatcher.
 *
 * Bundle hygiene: each platform lives in its own module with only its own SDK clients, and each
 * instance is created by a call marked pure, so esbuild drops the modules (and their SDK clients)
 * that a function never touches even when it imports from here. A function that needs exactly one
 * platform may as well import it from its module ('lib/platforms/managed' and so on).
 */
import { dedicated } from './dedicated';
import { hosted } from './hosted';
import { managed } from './managed';
import type { ChatCapable, PlatformName } from './types';

export { managed, dedicated, hosted };
export { systemPromptFor } from './prompts';
export * from './types';

/** The platform that answers chat turns for a resource of this type. */
export function chatPlatform(type: PlatformName): ChatCapable {
  switch (type) {
    case 'managed':
      return managed;
    case 'dedicated':
      return dedicated;
    case 'hosted':
      return hosted;
  }
}
