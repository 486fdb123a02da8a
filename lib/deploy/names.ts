import { BadRequest } from '../errors';
import type { PlatformName } from '../platforms/types';

/**
 * Endpoint names. Dedicated names become SageMaker resource names, so they follow SageMaker's rule:
 * 1-63 letters, digits and hyphens, starting and ending with a letter or digit, no double hyphen
 * rules beyond that. Managed and hosted names are only tracked here; they take the same characters,
 * 1 to 63 of them.
 */
export const DEDICATED_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;
export const TRACKED_NAME = /^[a-zA-Z0-9-]{1,63}$/;

export function checkEndpointName(platform: PlatformName, name: string): void {
  if (platform === 'dedicated') {
    if (!DEDICATED_NAME.test(name)) {
      throw new BadRequest(
        `Invalid endpointName "${name}": 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit (SageMaker's naming rule)`,
      );
    }
    return;
  }
  if (!TRACKED_NAME.test(name)) {
    throw new BadRequest(`Invalid endpointName "${name}": 1 to 63 letters, digits and hyphens`);
  }
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
