/**
 * Chat with a dedicated endpoint: SageMaker runtime InvokeEndpoint with the OpenAI chat payload that
 * TGI's Messages API and LMI containers accept: tools, tool_choice, parallel_tool_calls and
 * response_format (the containers' native JSON mode) pass through in OpenAI's shape, images as
 * image_url data: URLs (lib/platforms/openai.ts). Its own module, so that only the chat functions
 * bundle the SageMaker runtime client.
 */
import { InvokeEndpointWithResponseStreamCommand, SageMakerRuntimeClient, type ResponseStream } from '@aws-sdk/client-sagemaker-runtime';
import { UpstreamError } from '../../errors';
import { PlatformClient, http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorMessage, unreadable, upstreamDetail } from '../errors';
import { openAiChatBody, readOpenAiCompletion } from '../openai';
import { openAiStreamEvents } from '../sse';
import { systemText, textOf, type ChatCapable, type ChatReply, type ChatRequest, type ChatStreamEvent } from '../types';
import { PLATFORM, estimateTokens, invocationError, invokeJson } from './invoke';
import { traced } from '#tracing';

export class SageMakerEndpointChat implements ChatCapable {
  private readonly runtime: PlatformClient<SageMakerRuntimeClient>;

  constructor(options: AwsPlatformOptions) {
    this.runtime = new PlatformClient((throttling) => traced(new SageMakerRuntimeClient(http1ClientConfig({ ...options, throttling }))));
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const started = Date.now();
    const { answer, status } = await invokeJson(this.runtime.for(request), request.target, openAiChatBody(request));
    const latencyMs = Date.now() - started;
    const promptText = [
      ...(systemText(request.system).trim() ? [systemText(request.system)] : []),
      ...request.messages.map((m) => textOf(m.content)),
    ].join('\n');

    // TGI's native answer: [{ generated_text }].
    if (Array.isArray(answer) && typeof answer[0]?.generated_text === 'string') {
      const content = answer[0].generated_text as string;
      return { content, tokensIn: estimateTokens(promptText), tokensOut: estimateTokens(content), latencyMs, modelId: request.target };
    }
    const completion = readOpenAiCompletion(answer);
    if (!completion) throw unreadable(PLATFORM, status);
    const { content, toolCalls } = completion;
    return {
      content,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      tokensIn: completion.usage?.prompt_tokens ?? estimateTokens(promptText),
      tokensOut: completion.usage?.completion_tokens ?? estimateTokens(content + toolCalls.map((c) => c.name + c.arguments).join('')),
      latencyMs,
      modelId: completion.model ?? request.target,
      finishReason: completion.finishReason,
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
    const payload = { ...openAiChatBody(request), stream: true, stream_options: { include_usage: true } };
    let body: AsyncIterable<ResponseStream> | undefined;
    try {
      const out = await this.runtime.for(request).send(
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

/** A failure after the endpoint began answering: the model (container) broke off. */
const streamFailed = (detail?: string) => new UpstreamError(PLATFORM, 'The model on the dedicated platform failed while answering', 'failed', detail);

export function createDedicatedChat(overrides: Partial<AwsPlatformOptions> = {}): SageMakerEndpointChat {
  return new SageMakerEndpointChat(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedChat: ChatCapable = /* @__PURE__ */ createDedicatedChat();
