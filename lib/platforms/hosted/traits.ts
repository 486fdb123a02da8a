import { TRACKED_NAME, type PlatformTraits } from '../types';

/**
 * The hosted platform (an OpenAI-compatible inference API with a bearer key): pay per token, nothing
 * provisioned. A tracked resource names one of the API's models, always on; requests pass through in
 * OpenAI's own shape, so its models may do whatever the API offers them.
 */
export const hostedTraits: PlatformTraits = {
  name: 'hosted',
  label: 'Hosted',
  description: 'A hosted OpenAI-compatible API; pay per token.',
  billing: 'per-token',
  lifecycle: 'always-on',
  capabilities: { chat: true, stream: true, tools: true, jsonOutput: true, imageInput: true, embeddings: true },
  serviceTiers: false,
  target: (resource) => resource.model_id,
  names: { pattern: TRACKED_NAME, rule: '1 to 63 letters, digits and hyphens' },
};
