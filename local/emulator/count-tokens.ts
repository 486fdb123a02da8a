/**
 * Bedrock runtime's CountTokens (POST /model/{modelId}/count-tokens): the input tokens a Converse or an
 * InvokeModel request would be billed for, without running it and without charge.
 *
 * Which models count: AWS's "Supported models and Regions for token counting" table (Bedrock user
 * guide, count-tokens) names Claude 3.5 Haiku, 3.5 Sonnet and 3.5 Sonnet v2, 3.7 Sonnet, Opus 4 and
 * Sonnet 4, addressed by their bare foundation-model id. Models launched through cross-Region profiles
 * only (Claude 4.5 and later) and every other provider are refused with a ValidationException ("The
 * provided model doesn't support counting tokens"), and so is a profile id. The count is the emulated tokenizer's (emulateChat's inputTokens): what Converse
 * reports as input for the same messages, system prompt, images and tools.
 */
import { findFoundationModel } from './bedrock-profiles';
import { emulateChat, type ChatTurn } from './chat';
import { EmulatorError, jsonReply, parseJson, type Ctx, type Reply } from './shared';

const COUNTS_TOKENS = new Set([
  'anthropic.claude-3-5-haiku-20241022-v1:0',
  'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'anthropic.claude-opus-4-20250514-v1:0',
  'anthropic.claude-sonnet-4-20250514-v1:0',
]);

const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);

type Block = Record<string, unknown> & { text?: unknown; type?: unknown };
type Counted = { system: string[]; turns: ChatTurn[]; tools: { name: string; schema: Record<string, unknown> }[] };

const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? (value as Block[]).map((b) => (typeof b.text === 'string' ? b.text : b.json !== undefined ? JSON.stringify(b.json) : '')).join('\n')
      : '';

/** Converse's shape: messages of text, image and toolResult blocks; system text blocks; toolConfig. */
function converseInput(input: Record<string, unknown>): Counted {
  const messages = Array.isArray(input.messages) ? (input.messages as { role?: string; content?: Block[] }[]) : [];
  const turns = messages.map((m) => {
    const blocks = Array.isArray(m.content) ? m.content : [];
    return {
      role: String(m.role),
      text: blocks.flatMap((b) => (typeof b.text === 'string' ? [b.text] : [])).join('\n'),
      images: blocks.filter((b) => b.image).length,
      toolResults: blocks.flatMap((b) => {
        const result = b.toolResult as { toolUseId?: string; content?: unknown } | undefined;
        return result ? [{ id: String(result.toolUseId), text: textOf(result.content), isError: false }] : [];
      }),
    };
  });
  const system = Array.isArray(input.system) ? (input.system as Block[]).flatMap((b) => (typeof b.text === 'string' ? [b.text] : [])) : [];
  const specs = ((input.toolConfig as { tools?: Block[] } | undefined)?.tools ?? []).flatMap((t) => {
    const spec = t.toolSpec as { name?: string; inputSchema?: { json?: Record<string, unknown> } } | undefined;
    return spec ? [{ name: String(spec.name), schema: spec.inputSchema?.json ?? {} }] : [];
  });
  return { system, turns, tools: specs };
}

/** Anthropic's Messages body (InvokeModel's for Claude): string or block contents, tool_result blocks, tools. */
function anthropicInput(body: Record<string, unknown>): Counted {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const turns = messages.map((m) => {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    return {
      role: String(m.role),
      text: blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n'),
      images: blocks.filter((b) => b.type === 'image').length,
      toolResults: blocks.flatMap((b) => (b.type === 'tool_result' ? [{ id: String(b.tool_use_id), text: textOf(b.content), isError: false }] : [])),
    };
  });
  const system = body.system === undefined ? [] : [textOf(body.system)].filter(Boolean);
  const tools = (Array.isArray(body.tools) ? (body.tools as Block[]) : []).map((t) => ({
    name: String(t.name),
    schema: (t.input_schema as Record<string, unknown>) ?? {},
  }));
  return { system, turns, tools };
}

export async function countTokens(ctx: Ctx, modelId: string): Promise<Reply> {
  // Counting needs only the model's tokenizer: a documented model counts even where this emulator's
  // catalogue (a subset of Bedrock's) cannot run it.
  const id = findFoundationModel(modelId)?.modelId ?? modelId;
  if (!COUNTS_TOKENS.has(id)) throw validation("The provided model doesn't support counting tokens.");
  const request = parseJson<{ input?: { converse?: Record<string, unknown>; invokeModel?: { body?: string } } }>(ctx);
  let counted: Counted;
  if (request.input?.converse) counted = converseInput(request.input.converse);
  else if (typeof request.input?.invokeModel?.body === 'string') {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(request.input.invokeModel.body, 'base64').toString('utf8'));
    } catch {
      throw validation('Malformed input request: #: expected type: JSONObject, please reformat your input and try again.');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw validation('Malformed input request: #: expected type: JSONObject');
    counted = anthropicInput(body as Record<string, unknown>);
  } else throw validation("1 validation error detected: Value at 'input' failed to satisfy constraint: Member must not be null");
  if (counted.turns.length === 0) throw validation('A conversation must start with a user message.');
  const { system, turns, tools } = counted;
  const { inputTokens } = emulateChat({ model: id, system, turns, ...(tools.length > 0 && { tools }) });
  return jsonReply({ inputTokens });
}
