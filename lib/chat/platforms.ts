import { dedicatedEndpoints } from '../platforms/dedicated/endpoints';
import { chatOf } from '../platforms/chat';
import { systemPromptFor } from '../platforms/prompts';
import { traitsOf } from '../platforms/registry';
import type { ChatCapable, EndpointDescription } from '../platforms/types';
import type { Resource } from '../../tables/resources';

/**
 * Which platform answers for a tracked resource, and what it is called there (the contract in
 * lib/platforms/types.ts): managed and hosted take the model id, dedicated the endpoint name.
 */
export function chatBinding(resource: Resource): { platform: ChatCapable; target: string } {
  return { platform: chatOf(resource.type), target: traitsOf(resource.type).target(resource) };
}

export function systemPrompt(resource: Resource): string | undefined {
  return systemPromptFor(resource.type, resource.model_id || resource.endpoint_name) || undefined;
}

/** The live state of a dedicated endpoint; undefined when it no longer exists on the platform. */
export function describeEndpoint(resource: Resource): Promise<EndpointDescription | undefined> {
  return dedicatedEndpoints.describe(resource.endpoint_name);
}
