/**
 * Reasoning on Converse, as Bedrock does it for the models that reason ("Enhance model responses with
 * model reasoning", and Anthropic's "Extended thinking" page for Claude on Bedrock):
 * - Claude (3.7, 4.x) reasons when `additionalModelRequestFields.thinking` is `{type: enabled,
 *   budget_tokens}` (at least 1,024 and below maxTokens, unless `anthropic_beta` holds the interleaved
 *   thinking beta) or, on the models that have it, `{type: adaptive}`; thinking takes no temperature
 *   other than 1 and no top_k. With the interleaved beta it reasons again after tool results.
 * - gpt-oss takes `reasoning_effort` (low, medium, high) and always reasons.
 * - A model that does not reason refuses these fields as its schema refuses any unknown key.
 * The answer's reasoning is a `reasoningContent` block ahead of the text: `reasoningText` (text and a
 * signature over it), or `redactedContent` when the prompt holds Anthropic's test string for redacted
 * thinking. Reasoning blocks sent back in later turns are checked: a signature that does not match its
 * text is refused, and a Claude with thinking on refuses a last assistant turn with tool use that does
 * not start with its reasoning, as Anthropic's API does. Reasoning is output: its tokens count as such.
 */
import { createHash } from 'node:crypto';
import { tokensFor } from './chat';
import type { FoundationModel } from './catalogue';
import { EmulatorError } from './shared';

/** Anthropic's documented string that makes a Claude answer with redacted thinking (for testing clients). */
const REDACTED_THINKING_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253';

/** The betas Claude takes on Bedrock (the anthropic_beta request field); any other is refused. */
const BEDROCK_CLAUDE_BETAS = [
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
  'token-efficient-tools-2025-02-19',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'computer-use-2025-01-24',
];

const INTERLEAVED = 'interleaved-thinking-2025-05-14';
const MIN_BUDGET = 1_024;

const modelErrors = (message: string) => new EmulatorError(400, 'ValidationException', `The model returned the following errors: ${message}`);
const extraneous = (key: string) =>
  new EmulatorError(
    400,
    'ValidationException',
    `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`,
  );

export interface ReasoningBlockIn {
  reasoningText?: { text?: unknown; signature?: unknown };
  redactedContent?: unknown;
}

/** What a request asks of the model's reasoning, once its fields are checked. */
export interface ReasoningPlan {
  /** Whether the model reasons in this call. */
  on: boolean;
  /** Whether it reasons again after tool results (Claude: the interleaved beta). */
  interleaved: boolean;
  /** Whether the model checks that a last tool-using assistant turn starts with its reasoning. */
  claude: boolean;
}

const signatureOf = (model: string, text: string) => createHash('sha256').update(`emulated-thinking|${model}|${text}`).digest('base64');

/**
 * The model-specific request fields that concern reasoning (and sampling that reasoning forbids),
 * checked as the model's own schema checks them. Other fields are the caller's concern.
 */
export function readReasoning(
  model: FoundationModel,
  fields: Record<string, unknown> | undefined,
  inference: { maxTokens?: number; temperature?: number },
): ReasoningPlan {
  const f = fields ?? {};
  const claude = model.providerName === 'Anthropic';
  const betas = Array.isArray(f.anthropic_beta) ? (f.anthropic_beta as unknown[]) : [];
  if ('anthropic_beta' in f) {
    if (!claude) throw extraneous('anthropic_beta');
    const unknown = betas.find((b) => typeof b !== 'string' || !BEDROCK_CLAUDE_BETAS.includes(b));
    if (unknown !== undefined) throw new EmulatorError(400, 'ValidationException', `invalid beta flag: ${JSON.stringify(unknown)}`);
  }
  if ('top_k' in f && !claude) throw extraneous('top_k');
  const interleaved = betas.includes(INTERLEAVED);
  if (model.reasoning === 'effort') {
    if ('thinking' in f) throw extraneous('thinking');
    const effort = f.reasoning_effort;
    if (effort !== undefined && !['low', 'medium', 'high'].includes(effort as string))
      throw modelErrors(`reasoning_effort: Input should be 'low', 'medium' or 'high'`);
    return { on: true, interleaved: false, claude: false };
  }
  if ('reasoning_effort' in f) throw extraneous('reasoning_effort');
  const thinking = f.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking === undefined || thinking.type === 'disabled') return { on: false, interleaved, claude };
  if (!model.reasoning) throw extraneous('thinking');
  if (thinking.type === 'adaptive') {
    if (model.reasoning !== 'adaptive') throw modelErrors(`thinking.type: adaptive thinking is not supported on this model`);
  } else if (thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < MIN_BUDGET)
      throw modelErrors(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_BUDGET}`);
    if (!interleaved && inference.maxTokens !== undefined && inference.maxTokens <= budget)
      throw modelErrors('`max_tokens` must be greater than `thinking.budget_tokens`.');
  } else
    throw modelErrors(
      `thinking.type: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
    );
  if (inference.temperature !== undefined && inference.temperature !== 1)
    throw modelErrors('`temperature` may only be set to 1 when thinking is enabled.');
  if ('top_k' in f) throw modelErrors('`top_k` is not supported when thinking is enabled.');
  return { on: true, interleaved, claude };
}

/** Checks a reasoning block sent back in a conversation: its signature must be the model's own over its text. */
export function checkReasoningBlock(model: FoundationModel, block: ReasoningBlockIn, at: string): void {
  if (block.redactedContent !== undefined) return;
  const text = typeof block.reasoningText?.text === 'string' ? block.reasoningText.text : '';
  const signature = block.reasoningText?.signature;
  // gpt-oss signs nothing; Claude's reasoning must come back as it was written.
  if (model.providerName !== 'Anthropic' && signature === undefined) return;
  if (signature !== signatureOf(model.modelId, text)) throw modelErrors(`${at}: Invalid \`signature\` in \`thinking\` block`);
}

/** A last assistant turn that uses tools must start with its reasoning when thinking is on (Claude). */
export function checkThinkingTurn(plan: ReasoningPlan, blocks: { toolUse?: unknown; reasoningContent?: unknown }[], at: number): void {
  if (!plan.on || !plan.claude || !blocks.some((b) => b.toolUse)) return;
  if (!blocks[0]?.reasoningContent) {
    throw modelErrors(
      `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.toolUse ? 'tool_use' : 'text'}\`. ` +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
    );
  }
}

export type ReasoningOut = { reasoningText: { text: string; signature?: string } } | { redactedContent: string };

/**
 * The reasoning the emulated model writes before its answer, if it reasons in this call: none after
 * tool results unless interleaved. The prompt's test string makes it redacted.
 */
export function reasoningOf(
  model: FoundationModel,
  plan: ReasoningPlan,
  input: { lastUserText: string; toolResultsLast: boolean; prompt: string },
): { block: ReasoningOut; tokens: number } | undefined {
  if (!plan.on || (input.toolResultsLast && !plan.interleaved)) return undefined;
  if (input.prompt.includes(REDACTED_THINKING_TRIGGER)) {
    const data = Buffer.from(`redacted|${model.modelId}|${input.lastUserText}`).toString('base64');
    return { block: { redactedContent: data }, tokens: tokensFor(data.length) };
  }
  const text = input.toolResultsLast
    ? `Emulated reasoning of ${model.modelId} about the tool results.`
    : `Emulated reasoning of ${model.modelId} about: "${input.lastUserText}".`;
  const signature = model.providerName === 'Anthropic' ? signatureOf(model.modelId, text) : undefined;
  return { block: { reasoningText: { text, ...(signature && { signature }) } }, tokens: tokensFor(text.length) };
}
