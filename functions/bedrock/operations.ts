/** The operations of functions/bedrock/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';
import { ConverseResponse } from './response-schemas';
import { Parameters, RATE_LIMIT_HEADERS, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ConverseBody, ConversePath } from './schemas';

const headers = {
  'x-model-ops-cost-usd': {
    description: 'This call\'s exact cost in USD, unrounded, with up to 9 decimals ("0.0000001"). Not on streams.',
    schema: Type.String(),
  },
  'x-model-ops-resource': { description: 'The resource that answered (a route names one of its targets).', schema: Type.String() },
  'x-amzn-requestid': { description: "The request's id, as the AWS SDKs read it (also `x-request-id`).", schema: Type.String() },
  ...RATE_LIMIT_HEADERS,
};

const request = (name: string) => ({
  required: true,
  content: {
    'application/json': {
      schema: new RequestSchema(ConverseBody, name, {
        '': { description: "Bedrock's ConverseRequest (the model is the path's). See docs/bedrock-door.md." },
      }),
    },
  },
});

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
    requestBody: request('ConverseRequest'),
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
    requestBody: request('ConverseStreamRequest'),
    responses: {
      '200': {
        description: "Bedrock's ConverseStream events, AWS event-stream framed.",
        headers: { 'x-model-ops-resource': headers['x-model-ops-resource'], 'x-amzn-requestid': headers['x-amzn-requestid'] },
        content: { 'application/vnd.amazon.eventstream': { schema: Type.String({ format: 'binary' }) } },
      },
      ...errors('bedrock', 400, 403, 404, 413, 415, 429, 500, 502, 503, 504),
    },
  },
};
