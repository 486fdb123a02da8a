import { TRACKED_NAME, type PlatformTraits } from '../types';

/**
 * The managed platform (Amazon Bedrock): pay per token, nothing provisioned. A tracked resource names
 * a foundation model, which the platform runs: always on. Its models may chat, stream, call tools,
 * answer JSON, read images and embed text, each as its catalogue entry says.
 */
export const managedTraits: PlatformTraits = {
  name: 'managed',
  label: 'Managed',
  description: 'Pay per token; nothing to provision, always on.',
  billing: 'per-token',
  lifecycle: 'always-on',
  capabilities: { chat: true, stream: true, tools: true, jsonOutput: true, imageInput: true, embeddings: true },
  serviceTiers: true,
  // Through its inference profile where it has one: a system profile by id, an application profile by ARN.
  target: (resource) =>
    !resource.inference_profile
      ? resource.model_id
      : resource.inference_profile.type === 'APPLICATION'
        ? resource.inference_profile.arn
        : resource.inference_profile.id,
  names: { pattern: TRACKED_NAME, rule: '1 to 63 letters, digits and hyphens' },
};
