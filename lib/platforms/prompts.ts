/**
 * Default system prompts, one per model family. A model-info response shows the prompt the chat
 * code will send; families differ in what they need spelled out (Llama and Mistral instruct models
 * ramble without a length hint, small models need to be told not to invent facts, embedding models
 * take no prompt at all).
 */
import type { PlatformName } from './types';

const BASE = 'You are a helpful, accurate assistant. Answer clearly and concisely, and say so when you do not know something.';

interface Family {
  match: RegExp;
  prompt: string;
}

const FAMILIES: Family[] = [
  {
    match: /embed|retriever|rerank|\bbge\b|\be5-/,
    prompt:
      'This is an embedding model: it turns text into vectors for search and similarity and does not hold conversations. No system prompt is applied.',
  },
  {
    match: /anthropic|claude/,
    prompt: `${BASE} Think through multi-step questions before answering, and format code and lists in Markdown.`,
  },
  {
    match: /amazon\.|titan|nova/,
    prompt: `${BASE} Keep answers focused on the question asked.`,
  },
  {
    match: /codellama|starcoder|codestral|code/,
    prompt: 'You are an expert programming assistant. Give working, idiomatic code with a short explanation, and point out assumptions.',
  },
  {
    match: /llama/,
    prompt: `${BASE} Keep replies under a few paragraphs unless asked for more, and do not repeat the question back.`,
  },
  {
    match: /mistral|mixtral/,
    prompt: `${BASE} Reply directly without preamble, and use short paragraphs or lists.`,
  },
  {
    match: /cohere|command/,
    prompt: `${BASE} When the answer depends on facts you are unsure of, say which parts need checking.`,
  },
  {
    match: /gemma/,
    prompt: `${BASE} Keep replies short and factual.`,
  },
  {
    match: /nemotron|nvidia/,
    prompt: `${BASE} Structure longer answers with headings or lists.`,
  },
  {
    match: /phi/,
    prompt: `${BASE} Reason step by step for maths and logic, then give the final answer on its own line.`,
  },
  {
    match: /falcon/,
    prompt: `${BASE} Keep replies short, and do not invent facts.`,
  },
];

/** The system prompt the service sends with a chat turn to `modelId` on `platform`. */
export function systemPromptFor(platform: PlatformName, modelId: string): string {
  const id = modelId.toLowerCase();
  const family = FAMILIES.find((f) => f.match.test(id));
  if (family) return family.prompt;
  // Dedicated endpoints run whatever was deployed (and an unknown family anywhere): the generic prompt.
  return BASE;
}
