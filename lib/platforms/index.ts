/**
 * The chat side of the three platforms, and the dispatcher by resource type.
 *
 * Bundle hygiene: each SDK client lives in its own module (see types.ts) and each instance is created
 * by a call marked pure, so esbuild drops the modules (and their SDK clients) that a function never
 * touches. Control-plane code imports the module it needs ('lib/platforms/dedicated' and so on).
 */
import { dedicatedChat } from './dedicated/chat';
import { hosted } from './hosted/api';
import { managedChat } from './managed/chat';
import type { ChatCapable, PlatformName } from './types';

export { systemPromptFor } from './prompts';
export * from './types';

/** The platform that answers chat turns for a resource of this type. */
export function chatPlatform(type: PlatformName): ChatCapable {
  switch (type) {
    case 'managed':
      return managedChat;
    case 'dedicated':
      return dedicatedChat;
    case 'hosted':
      return hosted;
  }
}
