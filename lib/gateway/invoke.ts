import * as invoke from '../dialects/bedrock-invoke';
import { chatCall, type GatewayInput } from './chat';

/**
 * The /bedrock door's InvokeModel and InvokeModelWithResponseStream with Claude's body
 * (lib/dialects/bedrock-invoke.ts), through the same metered chat call as /v1, the model named by the
 * path: a resource's (or a route's) name.
 */
const streaming = { ...invoke, parse: invoke.parseStream };

/** POST /bedrock/model/{modelId}/invoke: Anthropic's message as the body. */
export const answerInvoke = (input: GatewayInput<invoke.InvokeBody>, modelId: string) =>
  chatCall<invoke.InvokeInput, invoke.InvokeCall>(invoke, { ...input, body: { ...input.body, modelId } });

/** POST /bedrock/model/{modelId}/invoke-with-response-stream: Anthropic's events as the event stream's chunks. */
export const streamInvoke = (input: GatewayInput<invoke.InvokeBody>, modelId: string) =>
  chatCall<invoke.InvokeInput, invoke.InvokeCall>(streaming, { ...input, body: { ...input.body, modelId } });
