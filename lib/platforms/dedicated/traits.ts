import type { PlatformTraits } from '../types';

/**
 * The dedicated platform (Amazon SageMaker endpoints): instances the service deploys, billed by the
 * hour from creation to deletion whether called or not, so a call costs nothing more. An endpoint has
 * a lifecycle (endpoints.ts: Creating, InService, Updating, …; start, restart, delete, a guardrail's
 * stop), read back from the platform. The container decides what a model can do: chat through its
 * OpenAI-compatible Messages API (TGI, LMI), tools and JSON where the container supports them,
 * embeddings on embedding containers (TEI).
 *
 * Endpoint names become SageMaker resource names, so they follow SageMaker's rule: 1-63 letters,
 * digits and hyphens, starting and ending with a letter or digit.
 */
export const dedicatedTraits: PlatformTraits = {
  name: 'dedicated',
  label: 'Dedicated',
  description: 'Endpoints on instances of your choice; billed by the hour until deleted.',
  billing: 'per-hour',
  lifecycle: 'endpoint',
  capabilities: { chat: true, stream: true, tools: true, jsonOutput: true, imageInput: true, embeddings: true },
  serviceTiers: false,
  target: (resource) => resource.endpoint_name,
  names: {
    pattern: /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/,
    rule: "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit (SageMaker's naming rule)",
  },
};
