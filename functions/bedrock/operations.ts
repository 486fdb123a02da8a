/** The operations of functions/bedrock/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type, type TObject } from '@sinclair/typebox';
import { ConverseResponse, CountTokensResponse } from './response-schemas';
import { AnthropicMessage } from '../gateway/response-schemas';
import { Parameters, RATE_LIMIT_HEADERS, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ConverseBody, ConversePath, CountTokensBody, InvokeBody } from './schemas';

const headers = {
  'x-model-ops-cost-usd': {
    description: 'This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001"). Not on streams.',
    schema: Type.String(),
  },
  'x-model-ops-resource': { description: 'The resource that answered (a route names one of its targets).', schema: Type.String() },
  'x-amzn-requestid': { description: "The request's id, as the AWS SDKs read it (also `x-request-id`).", schema: Type.String() },
  ...RATE_LIMIT_HEADERS,
};

const request = <B extends TObject>(name: string, body: B, description: string) => ({
  required: true,
  content: { 'application/json': { schema: new RequestSchema(body, name, { '': { description } }) } },
});

const converseBody = (name: string) => request(name, ConverseBody, "Bedrock's ConverseRequest (the model is the path's). See docs/bedrock-door.md.");

const invokeBody = (name: string) =>
  request(
    name,
    InvokeBody,
    "Claude's InvokeModel body: Anthropic's Messages request with anthropic_version bedrock-2023-05-31 and anthropic_beta in the body (the model is the path's). See docs/bedrock-door.md.",
  );

const invokeDoor = `The key, metering and errors as Converse's. The body is the one Bedrock takes for Claude in
InvokeModel: Anthropic's Messages request (\`max_tokens\`, \`messages\`, \`system\`, \`tools\`,
\`tool_choice\`, \`thinking\`, \`temperature\`, \`top_p\`, \`top_k\`, \`stop_sequences\`,
\`cache_control\`, ...) with \`anthropic_version: "bedrock-2023-05-31"\` and the betas as
\`anthropic_beta\` (those the model takes pass on; the others are dropped and named in
\`x-model-ops-betas-dropped\`), read and checked exactly as POST /v1/messages reads it. This is what
Claude Code sends with \`CLAUDE_CODE_USE_BEDROCK=1\`. Any chat resource answers it, as /v1/messages
answers for any; other models' native bodies (Nova's, Llama's, Titan's) are refused with 400
ValidationException: Converse is the door for them.`;

const parameters = new Parameters({ path: ConversePath }, [
  { name: 'modelId', in: 'path', schema: { description: "a resource's or a route's name, as GET /v1/models lists it; percent-encoded" } },
]);

const door = `The API key as a bearer token (\`Authorization: Bearer mo_...\`), as Bedrock API keys are
sent: an AWS SDK constructed with \`token\` and \`endpoint: <base>/bedrock\` (or
\`AWS_BEARER_TOKEN_BEDROCK\`) calls it unchanged. Metered exactly like POST /v1/chat/completions:
held, billed and settled under the key's, its owner's and its teams' budgets and rate limits;
\`modelId\` may name a route. \`system\`, messages with text, image (base64 bytes), toolUse,
toolResult, reasoningContent and cachePoint blocks, \`inferenceConfig\`, \`toolConfig\`, and in
\`additionalModelRequestFields\` Anthropic's \`top_k\`, \`thinking\` and \`anthropic_beta\`.
Errors are Bedrock's: \`x-amzn-errortype\` and \`{"message"}\`; a missing or unknown key and a spent
budget are 403 AccessDeniedException (a retry would not help), a rate limit 429 ThrottlingException
(which the SDKs retry with backoff), a model the key may not use 404 ResourceNotFoundException.`;

export const operations: Operations = {
  /** POST /bedrock/model/{modelId}/converse */
  converse: {
    tags: ['bedrock'],
    summary: "A conversation turn (Bedrock's Converse)",
    description: `${door}\n`,
    parameters,
    requestBody: converseBody('ConverseRequest'),
    responses: {
      '200': { description: "Bedrock's ConverseResponse.", headers, content: { 'application/json': { schema: Ref(ConverseResponse) } } },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
  /** POST /bedrock/model/{modelId}/converse-stream */
  converseStream: {
    tags: ['bedrock'],
    summary: "A conversation turn, streamed (Bedrock's ConverseStream)",
    description: `${door}

The answer is AWS's event stream (\`application/vnd.amazon.eventstream\`), which the SDKs decode:
messageStart, contentBlockStart (a toolUse), contentBlockDelta (text, toolUse input,
reasoningContent), contentBlockStop, messageStop (the stopReason), metadata (the usage the call was
recorded as). A failure mid-stream is an exception event (throttlingException, ...). Through
CloudFront the path goes to a function URL that streams; the HTTP API route answers the whole stream
at once.
`,
    parameters,
    requestBody: converseBody('ConverseStreamRequest'),
    responses: {
      '200': {
        description: "Bedrock's ConverseStream events, AWS event-stream framed.",
        headers: { 'x-model-ops-resource': headers['x-model-ops-resource'], 'x-amzn-requestid': headers['x-amzn-requestid'] },
        content: { 'application/vnd.amazon.eventstream': { schema: Type.String({ format: 'binary' }) } },
      },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
  /** POST /bedrock/model/{modelId}/invoke */
  invoke: {
    tags: ['bedrock'],
    summary: "A message from Claude's InvokeModel body (Bedrock's InvokeModel)",
    description: `${invokeDoor}

The answer is the model's native JSON: Anthropic's message object.
`,
    parameters,
    requestBody: invokeBody('InvokeModelRequest'),
    responses: {
      '200': {
        description: "Anthropic's message, as Bedrock's InvokeModel answers for Claude.",
        headers: {
          ...headers,
          'x-amzn-bedrock-input-token-count': { description: 'the input tokens the call was billed for', schema: Type.String() },
          'x-amzn-bedrock-output-token-count': { description: 'the output tokens the call was billed for', schema: Type.String() },
          'x-amzn-bedrock-invocation-latency': { description: "the model's latency in milliseconds", schema: Type.String() },
        },
        content: { 'application/json': { schema: Ref(AnthropicMessage) } },
      },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
  /** POST /bedrock/model/{modelId}/invoke-with-response-stream */
  invokeStream: {
    tags: ['bedrock'],
    summary: "A message from Claude's InvokeModel body, streamed (Bedrock's InvokeModelWithResponseStream)",
    description: `${invokeDoor}

The answer is AWS's event stream (\`application/vnd.amazon.eventstream\`) of \`chunk\` events, each a
PayloadPart whose \`bytes\` are one of Anthropic's stream events as JSON (message_start,
content_block_start, content_block_delta, content_block_stop, message_delta, message_stop); the
message_stop event carries \`amazon-bedrock-invocationMetrics\` (inputTokenCount, outputTokenCount,
invocationLatency, firstByteLatency, and the cache's counts where it was used), the tokens the call was
recorded as. A failure mid-stream is an exception event (throttlingException, ...). Through
CloudFront the path goes to a function URL that streams; the HTTP API route answers the whole stream
at once.
`,
    parameters,
    requestBody: invokeBody('InvokeModelWithResponseStreamRequest'),
    responses: {
      '200': {
        description: "Bedrock's InvokeModelWithResponseStream events, AWS event-stream framed.",
        headers: { 'x-model-ops-resource': headers['x-model-ops-resource'], 'x-amzn-requestid': headers['x-amzn-requestid'] },
        content: { 'application/vnd.amazon.eventstream': { schema: Type.String({ format: 'binary' }) } },
      },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
  /** POST /bedrock/model/{modelId}/count-tokens */
  countTokens: {
    tags: ['bedrock'],
    summary: "The input tokens of a request (Bedrock's CountTokens)",
    description: `The key and errors as Converse's. \`input\` is the request to count: \`invokeModel.body\` (base64
of Claude's InvokeModel body, checked as InvokeModel checks it) or \`converse\` (messages, system,
toolConfig, additionalModelRequestFields, checked as Converse checks them). Free: no budget is held
and nothing is recorded as spend; rate-limited like any call (a request in the requests-per-minute
windows; a full window is 429 ThrottlingException). On the Bedrock models that have CountTokens the
platform counts; elsewhere the answer is the prompt's bound a call's budget hold reserves
(\`x-model-ops-token-count\`: \`platform\` or \`estimate\`). See docs/bedrock-door.md.
`,
    parameters,
    requestBody: request('CountTokensRequest', CountTokensBody, "Bedrock's CountTokensRequest (the model is the path's)."),
    responses: {
      '200': {
        description: "Bedrock's CountTokensResponse.",
        headers: {
          'x-model-ops-token-count': {
            description: '`platform` when the platform counted, `estimate` when the prompt bound was given.',
            schema: Type.String(),
          },
          'x-model-ops-resource': headers['x-model-ops-resource'],
          'x-amzn-requestid': headers['x-amzn-requestid'],
        },
        content: { 'application/json': { schema: Ref(CountTokensResponse) } },
      },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
};
