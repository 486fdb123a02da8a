/**
 * Amazon SageMaker Runtime InvokeEndpoint (restJson1, POST /endpoints/{name}/invocations) and
 * InvokeEndpointWithResponseStream (POST /endpoints/{name}/invocations-response-stream: the container's
 * bytes as PayloadPart events of application/vnd.amazon.eventstream). What answers depends on the
 * endpoint's container image, as on SageMaker:
 * - Text Embeddings Inference (an image named `tei`): TEI's /invocations is its /embed, `{inputs,
 *   normalize, truncate, dimensions}` in, an array of vectors out, at most 32 texts a call;
 * - any other (TGI, LMI): the OpenAI chat-completions shape of their Messages API (tools, tool_choice,
 *   response_format, image_url parts for a vision model), their server-sent events when the payload
 *   asks for `stream: true`, and TGI's native `{inputs}` generate request.
 * Every call, faulted or not, is recorded so CloudWatch can report what really happened.
 */
import { embeddingOf, emulateChat, fromOpenAiBody, modelLatency, openAiChunks, openAiCompletion, type OpenAiChatBody } from './chat';
import { endpointContainer, endpointModels, settleEndpoint } from './sagemaker';
import { eventFrame, exceptionFrame } from './eventstream';
import { EmulatorError, jsonReply, streamReply, type Ctx, type Reply, type Route, type ServiceDef } from './shared';

function logsUrl(ctx: Ctx, endpoint: string): string {
  const { region } = ctx.opts;
  return (
    `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}` +
    `#logEventViewer:group=/aws/sagemaker/Endpoints/${endpoint} in account ${ctx.opts.accountId}`
  );
}

/** The real ModelError wraps whatever the container answered, with a pointer to its logs. */
function modelError(ctx: Ctx, endpoint: string, status: number, message: string): EmulatorError {
  const side = status >= 500 ? 'server' : 'client';
  return new EmulatorError(
    424,
    'ModelError',
    `Received ${side} error (${status}) from primary with message "${message}". See ${logsUrl(ctx, endpoint)} for more information.`,
    {
      extra: {
        OriginalStatusCode: status,
        OriginalMessage: message,
        LogStreamArn: `arn:aws:logs:${ctx.opts.region}:${ctx.opts.accountId}:log-group:/aws/sagemaker/Endpoints/${endpoint}`,
      },
    },
  );
}

interface InvocationBody extends OpenAiChatBody {
  max_new_tokens?: number;
  /** TGI's native shape: one prompt string; TEI's: one text or several. */
  inputs?: unknown;
  parameters?: { max_new_tokens?: number };
  normalize?: unknown;
  truncate?: unknown;
  dimensions?: unknown;
}

/** TEI's default --max-client-batch-size. */
const TEI_MAX_BATCH = 32;
/** The vector size of the emulated TEI model (BGE large). */
const TEI_DIMENSIONS = 1024;
const TEI_IMAGE = /\/tei(-cpu)?:|text-embeddings-inference/;
const VISION_MODEL = /vision|llava|idefics|pixtral|-vl-|-vl\b/i;

/** TEI's /embed: validation errors are 422 (413 for too many texts) with TEI's own messages. */
function teiEmbed(ctx: Ctx, name: string, body: InvocationBody): unknown {
  const inputs = typeof body.inputs === 'string' ? [body.inputs] : body.inputs;
  if (!Array.isArray(inputs) || inputs.some((t) => typeof t !== 'string')) {
    throw modelError(
      ctx,
      name,
      422,
      'Failed to deserialize the JSON body into the target type: inputs: data did not match any variant of untagged enum Input',
    );
  }
  if (inputs.length === 0) throw modelError(ctx, name, 422, '`inputs` cannot be empty');
  if (inputs.length > TEI_MAX_BATCH) throw modelError(ctx, name, 413, `batch size ${inputs.length} > maximum allowed batch size ${TEI_MAX_BATCH}`);
  const dimensions = body.dimensions ?? TEI_DIMENSIONS;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > TEI_DIMENSIONS) {
    throw modelError(ctx, name, 422, `\`dimensions\` must be between 1 and ${TEI_DIMENSIONS}`);
  }
  return (inputs as string[]).map((text) => embeddingOf(text, dimensions, body.normalize !== false));
}

async function invokeEndpoint(ctx: Ctx, name: string, streamed = false): Promise<Reply> {
  const ep = settleEndpoint(ctx.state, ctx.opts, name);
  // Updating endpoints keep serving on their previous config, as in SageMaker.
  if (!ep || (ep.status !== 'InService' && ep.status !== 'Updating')) {
    throw new EmulatorError(400, 'ValidationError', `Endpoint ${name} of account ${ctx.opts.accountId} not found.`);
  }
  const model = endpointModels(ctx.state, ep.configName)[0] ?? name;
  const variant = ctx.state.endpointConfigs.get(ep.configName)?.variants[0]?.VariantName ?? 'AllTraffic';

  let body: InvocationBody;
  try {
    body = JSON.parse(ctx.body.toString('utf8')) as InvocationBody;
  } catch {
    throw modelError(ctx, name, 400, 'Failed to deserialize the JSON body into the target type');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw modelError(ctx, name, 422, 'Failed to deserialize the JSON body into the target type');

  await modelLatency(ctx.opts);
  if (ctx.fail) throw modelError(ctx, name, 500, 'CUDA error: an illegal memory access was encountered');

  const headers = { 'content-type': 'application/json', 'x-amzn-invoked-production-variant': variant };
  const container = endpointContainer(ctx.state, ctx.opts, ep.configName);
  if (TEI_IMAGE.test(container.image)) {
    if (streamed) throw modelError(ctx, name, 404, 'Not Found');
    return { ...jsonReply(teiEmbed(ctx, name, body)), headers };
  }
  if (typeof body.inputs === 'string') {
    const result = emulateChat({
      model,
      system: [],
      turns: [{ role: 'user', text: body.inputs }],
      maxTokens: body.parameters?.max_new_tokens,
    });
    return { ...jsonReply([{ generated_text: result.text }]), headers };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw modelError(ctx, name, 422, 'Failed to deserialize the JSON body into the target type: missing field `messages`');
  }

  const request = fromOpenAiBody(body, { id: model, vision: VISION_MODEL.test(container.names) }, (message) => modelError(ctx, name, 422, message));
  const result = emulateChat({ ...request, maxTokens: request.maxTokens ?? body.max_new_tokens });
  const id = `chatcmpl-${ctx.state.nextId++}`;
  const created = Math.floor(Date.now() / 1000);
  if (!streamed) return { ...jsonReply(openAiCompletion(id, model, result, created)), headers };

  // The container's server-sent events (or its JSON, when it was not asked to stream), cut into
  // PayloadParts at arbitrary points as SageMaker forwards bytes: a reader must reassemble lines.
  const bytes = Buffer.from(
    body.stream
      ? openAiChunks(id, model, result, created, body.stream_options?.include_usage === true).join('')
      : JSON.stringify(openAiCompletion(id, model, result, created)),
  );
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += PART_BYTES) parts.push(eventFrame('PayloadPart', bytes.subarray(at, at + PART_BYTES)));
  const failure = exceptionFrame('ModelStreamError', {
    Message: 'Model stream error: the model container closed the stream',
    ErrorCode: 'ModelStreamError',
  });
  return streamReply(ctx, 'application/vnd.amazon.eventstream', parts, failure, {
    'x-amzn-invoked-production-variant': variant,
    'x-amzn-sagemaker-content-type': body.stream ? 'text/event-stream' : 'application/json',
  });
}

/** PayloadPart size: small enough that events split across parts, as they do from a real endpoint. */
const PART_BYTES = 96;

export const runtime: ServiceDef = {
  name: 'sagemaker-runtime',
  errorStyle: { kind: 'restJson', messageKey: 'Message' },
  internalError: () => new EmulatorError(500, 'InternalFailure', 'An internal error occurred. Please try again.'),
  throttlingError: () => new EmulatorError(429, 'ThrottlingException', 'Rate exceeded'),
  // What a TGI container answers a prompt over its --max-input-tokens, wrapped as ModelError.
  contextError: (ctx, route) =>
    modelError(ctx, route.keys[0] as string, 422, 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192'),
  route(ctx): Route | undefined {
    const match = /^\/endpoints\/([^/]+)\/(invocations|invocations-response-stream)$/.exec(ctx.path);
    if (ctx.method !== 'POST' || !match) return undefined;
    const name = decodeURIComponent(match[1] as string);
    const keys = [name, ...endpointModels(ctx.state, ctx.state.endpoints.get(name)?.configName)];
    const streamed = match[2] === 'invocations-response-stream';
    return {
      op: streamed ? 'InvokeEndpointWithResponseStream' : 'InvokeEndpoint',
      keys,
      canFail: true,
      run: () => invokeEndpoint(ctx, name, streamed),
    };
  },
  onComplete(ctx, route, status, elapsedMs) {
    const name = route.keys[0] as string;
    const ep = settleEndpoint(ctx.state, ctx.opts, name);
    // SageMaker only publishes invocation metrics for endpoints that took the request.
    if (!ep || (ep.status !== 'InService' && ep.status !== 'Updating')) return;
    // The emulated endpoint routes every call to its first variant, as the reply header says.
    const variant = ctx.state.endpointConfigs.get(ep.configName)?.variants[0]?.VariantName ?? 'AllTraffic';
    ctx.state.invocations.push({ endpoint: name, variant, at: Date.now(), latencyUs: Math.round(elapsedMs * 1000), status });
  },
};
