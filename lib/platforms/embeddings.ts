/**
 * The embeddings side of every platform, by name. Importing this module bundles each platform's
 * embeddings client (Bedrock runtime InvokeModel, SageMaker runtime, fetch): the embeddings functions
 * need them all, and nothing else imports it.
 */
import { dedicatedEmbeddings } from './dedicated/embeddings';
import { hosted } from './hosted/api';
import { managedEmbeddings } from './managed/embeddings';
import type { EmbeddingCapable, PlatformName } from './types';

const EMBEDDINGS: Record<PlatformName, EmbeddingCapable> = { managed: managedEmbeddings, dedicated: dedicatedEmbeddings, hosted };

/** The platform that embeds texts for a resource of this type. */
export const embeddingsOf = (name: PlatformName): EmbeddingCapable => EMBEDDINGS[name];
