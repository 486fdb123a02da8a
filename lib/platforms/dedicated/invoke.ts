/**
 * What chat and embeddings on a dedicated endpoint share: one JSON InvokeEndpoint, and how SageMaker
 * runtime's failures read. No client is built here: each of chat.ts and embeddings.ts builds its own,
 * so a function bundles only what it calls.
 */
import { InvokeEndpointCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { UpstreamError, type DomainError } from '../../errors';
import { errorMessage, errorName, toUpstreamError, unreadable } from '../errors';

export const PLATFORM = 'dedicated' as const;

/** Without the container's count: about 4 bytes a token, as every estimate here. */
export const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** A failure of InvokeEndpoint (or its streamed form) before the container answered. */
export function invocationError(endpointName: string, err: unknown): DomainError {
  // The runtime's "Endpoint X of account N not found." covers endpoints that are gone and ones not InService.
  if (errorName(err) === 'ValidationError' && /not found/i.test(errorMessage(err))) {
    return new UpstreamError(
      PLATFORM,
      `The dedicated endpoint "${endpointName}" is not available (not found, or not InService)`,
      'failed',
      undefined,
      400,
    );
  }
  return toUpstreamError(PLATFORM, err);
}

/** InvokeEndpoint with a JSON body; the container's answer parsed (a body that is not JSON is unreadable). */
export async function invokeJson(
  runtime: SageMakerRuntimeClient,
  endpointName: string,
  payload: unknown,
): Promise<{ answer: unknown; status?: number }> {
  let body: Uint8Array | undefined;
  let status: number | undefined;
  try {
    const out = await runtime.send(
      new InvokeEndpointCommand({
        EndpointName: endpointName,
        ContentType: 'application/json',
        Accept: 'application/json',
        Body: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
    body = out.Body;
    status = out.$metadata.httpStatusCode;
  } catch (err) {
    throw invocationError(endpointName, err);
  }
  try {
    return { answer: JSON.parse(new TextDecoder().decode(body)), status };
  } catch {
    throw unreadable(PLATFORM, status);
  }
}
