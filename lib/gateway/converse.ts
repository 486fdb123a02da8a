import * as converse from '../dialects/bedrock-converse';
import { NotFound } from '../errors';
import { chatCall, type GatewayInput } from './chat';

/**
 * The /bedrock door: Bedrock's Converse and ConverseStream (lib/dialects/bedrock-converse.ts) through
 * the same metered chat call as /v1, the model named by the path: a resource's (or a route's) name.
 */
const streaming = { ...converse, parse: converse.parseStream };

/** POST /bedrock/model/{modelId}/converse. */
export const answerConverse = (input: GatewayInput<converse.ConverseBody>, modelId: string) =>
  chatCall<converse.ConverseInput, converse.ConverseCall>(converse, { ...input, body: { ...input.body, modelId } });

/** POST /bedrock/model/{modelId}/converse-stream: the answer as AWS's event stream. */
export const streamConverse = (input: GatewayInput<converse.ConverseBody>, modelId: string) =>
  chatCall<converse.ConverseInput, converse.ConverseCall>(streaming, { ...input, body: { ...input.body, modelId } });

const STREAM_PATH = /^\/bedrock\/model\/([^/]+)\/(converse-stream|invoke-with-response-stream)$/;

/**
 * The model of a streamed request (ConverseStream, InvokeModelWithResponseStream) behind its function
 * URL, which has no path parameters: read from the path CloudFront passed on (the SDKs percent-encode
 * an ARN's slashes and colons).
 */
export function streamModelId(rawPath: string | undefined, operation: 'converse-stream' | 'invoke-with-response-stream' = 'converse-stream'): string {
  const match = STREAM_PATH.exec(rawPath ?? '');
  let modelId: string | undefined;
  try {
    modelId = match?.[1] === undefined || match[2] !== operation ? undefined : decodeURIComponent(match[1]);
  } catch {
    modelId = undefined;
  }
  if (!modelId) throw new NotFound(`Not found: POST /bedrock/model/{modelId}/${operation}`);
  return modelId;
}
