/**
 * What a dedicated endpoint's model can do follows from its container, which the deploy knows (the
 * model package's container, the public hub document's HostingEcrUri, or the inferenceImage given):
 *
 * | Container (image)                                   | Kind      | Capabilities |
 * |---|---|---|
 * | Text Embeddings Inference (`tei`, `tei-cpu`)        | embedding | embeddings |
 * | TGI (`…-tgi-inference`), LMI (`djl-inference…lmi`), vLLM | chat  | chat, stream, tools, JSON output (their OpenAI-compatible Messages API); images when the model is a vision model (its name says so) |
 * | anything else                                       | generic   | chat and stream, as before capabilities were recorded: the call sends the OpenAI chat shape and the container answers or refuses |
 *
 * A model package that takes no JSON (its SupportedContentTypes lack application/json, as a CSV
 * classifier's do) cannot chat at all. The kind is read from the deploy, with no field of its own on
 * the deploy body, so that what is recorded is what was deployed.
 */
import type { ModelCapabilities } from '../types';

export type ContainerKind = 'embedding' | 'chat' | 'generic';

const TEI = /\/tei(-cpu)?:|text-embeddings-inference/;
const CHAT = /tgi-inference|text-generation-inference|djl-inference|djl-lmi|\blmi\b|vllm|tensorrt-?llm/;
const VISION = /vision|llava|idefics|pixtral|-vl-|-vl\b|qwen2-vl/i;

export function containerKind(image: string | undefined): ContainerKind {
  if (!image) return 'generic';
  if (TEI.test(image)) return 'embedding';
  if (CHAT.test(image)) return 'chat';
  return 'generic';
}

const NOTHING: ModelCapabilities = { chat: false, stream: false, tools: false, jsonOutput: false, imageInput: false, embeddings: false };

/**
 * A dedicated model's capabilities: from its container image, the model's names (package or hub
 * model, artefacts: whether it reads images) and, for a model package, the content types it takes.
 */
export function dedicatedCapabilities(model: { image?: string; names?: string[]; contentTypes?: string[] }): ModelCapabilities {
  const kind = containerKind(model.image);
  if (kind === 'embedding') return { ...NOTHING, embeddings: true };
  if (model.contentTypes && model.contentTypes.length > 0 && !model.contentTypes.includes('application/json')) return NOTHING;
  if (kind === 'generic') return { ...NOTHING, chat: true, stream: true };
  const vision = (model.names ?? []).some((n) => VISION.test(n));
  return { chat: true, stream: true, tools: true, jsonOutput: true, imageInput: vision, embeddings: false };
}
