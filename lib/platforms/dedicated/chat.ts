/**
 * Chat with a dedicated endpoint: SageMaker runtime InvokeEndpoint with the OpenAI chat payload that
 * TGI's Messages API and LMI containers accept. Its own module, so that only the chat functions
 * bundle the SageMaker runtime client.
 */
import {
  InvokeEndpointCommand,
  InvokeEndpointWithResponseStreamCommand,
  SageMakerRuntimeClient,
  type ResponseStream,
} from '@aws-sdk/client-sagemaker-runtime';
import { UpstreamError, type DomainError } from '../../errors';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorMessage, errorName, toUpstreamError, unreadable, upstreamDetail } from '../errors';
import { openAiStreamEvents } from '../sse';
import { openAiSampling, textOf, type ChatCapable, type ChatReply, type ChatRequest, type ChatStreamEvent } from '../types';
import { traced } from '#tracing';

const PLATFORM = 'dedicated' as const;

/** Whatever the container answered: the OpenAI chat shape (TGI Messages API, LMI) or TGI's native one. */
interface InvocationAnswer {
  model?: unknown;
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export class SageMakerEndpointChat implements ChatCapable {
  private readonly runtime: SageMakerRuntimeClient;

  constructor(options: AwsPlatformOptions) {
    this.runtime = traced(new SageMakerRuntimeClient(http1ClientConfig(options)));
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const started = Date.now();
    const messages = openAiMessages(request);
    const payload = { messages, ...openAiSampling(request) };
    let body: Uint8Array | undefined;
    let status: number | undefined;
    try {
      const out = await this.runtime.send(
        new InvokeEndpointCommand({
          EndpointName: request.target,
          ContentType: 'application/json',
          Accept: 'application/json',
          Body: new TextEncoder().encode(JSON.stringify(payload)),
        }),
      );
      body = out.Body;
      status = out.$metadata.httpStatusCode;
    } catch (err) {
      throw invocationError(request.target, err);
    }

    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw unreadable(PLATFORM, status);
    }
    const latencyMs = Date.now() - started;
    const promptText = [...(request.system?.trim() ? [request.system] : []), ...request.messages.map((m) => textOf(m.content))].join('\n');

    // TGI's native answer: [{ generated_text }].
    if (Array.isArray(answer) && typeof answer[0]?.generated_text === 'string') {
      const content = answer[0].generated_text as string;
      return { content, tokensIn: estimateTokens(promptText), tokensOut: estimateTokens(content), latencyMs, modelId: request.target };
    }
    const completion = answer as InvocationAnswer | null;
    const content = completion?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw unreadable(PLATFORM, status);
    return {
      content,
      tokensIn: completion?.usage?.prompt_tokens ?? estimateTokens(promptText),
      tokensOut: completion?.usage?.completion_tokens ?? estimateTokens(content),
      latencyMs,
      modelId: typeof completion?.model === 'string' ? completion.model : request.target,
      finishReason: completion?.choices?.[0]?.finish_reason === 'length' ? 'length' : 'stop',
    };
  }

  /**
   * InvokeEndpointWithResponseStream with `stream: true` in the payload: the container's server-sent
   * events arrive as PayloadPart bytes, cut anywhere, and are read like the hosted API's. The usage
   * chunk is asked for (stream_options.include_usage, which TGI and vLLM-based LMI honour); a container
   * that ignores it leaves the usage to the caller's estimate.
   */
  async *chatStream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const started = Date.now();
    const payload = { messages: openAiMessages(request), ...openAiSampling(request), stream: true, stream_options: { include_usage: true } };
    let body: AsyncIterable<ResponseStream> | undefined;
    try {
      const out = await this.runtime.send(
        new InvokeEndpointWithResponseStreamCommand({
          EndpointName: request.target,
          ContentType: 'application/json',
          Accept: 'text/event-stream',
          Body: new TextEncoder().encode(JSON.stringify(payload)),
        }),
        { abortSignal: signal },
      );
      body = out.Body;
    } catch (err) {
      throw invocationError(request.target, err);
    }
    if (!body) throw unreadable(PLATFORM);
    const stream = body;
    async function* bytes(): AsyncGenerator<Uint8Array> {
      try {
        for await (const event of stream) {
          if (event.PayloadPart?.Bytes) yield event.PayloadPart.Bytes;
          else if (event.ModelStreamError || event.InternalStreamFailure) {
            throw streamFailed(upstreamDetail(event.ModelStreamError?.Message ?? event.InternalStreamFailure?.Message));
          }
        }
      } catch (err) {
        throw err instanceof UpstreamError ? err : streamFailed(upstreamDetail(errorMessage(err)));
      }
    }
    for await (const event of openAiStreamEvents(bytes(), { failed: streamFailed, unreadable: () => unreadable(PLATFORM) })) {
      yield event.kind === 'usage' ? { ...event, latencyMs: Date.now() - started, modelId: event.modelId ?? request.target } : event;
    }
  }

  destroy(): void {
    this.runtime.destroy();
  }
}

const openAiMessages = (request: ChatRequest) => [
  ...(request.system?.trim() ? [{ role: 'system', content: request.system }] : []),
  ...request.messages.map((m) => ({ role: m.role, content: m.content })),
];

/** A failure after the endpoint began answering: the model (container) broke off. */
const streamFailed = (detail?: string) => new UpstreamError(PLATFORM, 'The model on the dedicated platform failed while answering', 'failed', detail);

function invocationError(endpointName: string, err: unknown): DomainError {
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

export function createDedicatedChat(overrides: Partial<AwsPlatformOptions> = {}): SageMakerEndpointChat {
  return new SageMakerEndpointChat(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedChat: ChatCapable = /* @__PURE__ */ createDedicatedChat();
