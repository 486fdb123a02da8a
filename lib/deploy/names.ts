import { BadRequest } from '../errors';
import { traitsOf } from '../platforms/registry';
import type { PlatformName } from '../platforms/types';

/** Endpoint names follow their platform's rule (PlatformTraits.names). */
export function checkEndpointName(platform: PlatformName, name: string): void {
  const { pattern, rule } = traitsOf(platform).names;
  if (!pattern.test(name)) throw new BadRequest(`Invalid endpointName "${name}": ${rule}`);
}

/** A default tracked name for a model id: "meta/llama-3.1-8b-instruct" -> "meta-llama-3-1-8b-instruct". */
export function nameFromModelId(modelId: string): string {
  const name = modelId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return name || 'hosted-model';
}
