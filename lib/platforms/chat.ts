/**
 * The chat side of every platform, by name. Importing this module bundles each platform's chat
 * client (Bedrock runtime, SageMaker runtime, fetch): the functions that chat need them all.
 *
 * Bundle hygiene: each SDK client lives in its own module and each instance is created by a call
 * marked pure, so esbuild drops the modules (and their SDK clients) that a function never touches.
 */
import { dedicatedChat } from './dedicated/chat';
import { hosted } from './hosted/api';
import { managedChat } from './managed/chat';
import type { ChatCapable, PlatformName } from './types';

const CHAT: Record<PlatformName, ChatCapable> = { managed: managedChat, dedicated: dedicatedChat, hosted };

/** The platform that answers chat for a resource of this type. */
export const chatOf = (name: PlatformName): ChatCapable => CHAT[name];
