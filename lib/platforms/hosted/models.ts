/**
 * What the hosted platform's catalogue says about a model id such as "meta/llama-3.1-8b-instruct": the
 * API lists ids only, so the name, tags, task and capabilities are read from the id. Plain functions,
 * no client.
 */
import type { HostedModelEntry, ModelCapabilities } from '../types';

const EMBEDDING = /embed|retriever|rerank|\bbge\b|(^|[/-])e5-/i;
/** Models that read images: the vision variants of families ("llama-3.2-11b-vision", "qwen2-vl", "phi-3.5-vision"). */
const VISION = /vision|vl\b|-vl-|llava|pixtral/;
const ACRONYMS = new Set(['it', 'moe', 'qa', 'vl', 'llm', 'nv', 'sql', 'r', 'hf']);

export function hostedTask(id: string): 'chat' | 'embedding' {
  return EMBEDDING.test(id) ? 'embedding' : 'chat';
}

/** The name part of an id: "meta/llama-3.1-8b-instruct" → "llama-3.1-8b-instruct". */
function localName(id: string): string {
  return id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
}

/** A display name from the id: "llama-3.1-8b-instruct" → "Llama 3.1 8B Instruct". */
export function hostedModelName(id: string): string {
  return localName(id)
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => {
      const lower = word.toLowerCase();
      if (ACRONYMS.has(lower)) return lower.toUpperCase();
      // Sizes and context lengths: 8b → 8B, 8x7b → 8x7B, 128k → 128K.
      if (/^\d+(\.\d+)?(x\d+(\.\d+)?)?[bkm]$/i.test(word)) return word.slice(0, -1) + word.slice(-1).toUpperCase();
      if (/^v\d/i.test(word)) return lower;
      return word.charAt(0).toUpperCase() + word.slice(1);
    })
    .join(' ');
}

/** Tags: the model family (first word of the name, digits dropped) and what it does. */
export function hostedTags(id: string): string[] {
  const name = localName(id).toLowerCase();
  const family = /^[a-z]+/.exec(name)?.[0];
  const task = hostedTask(id);
  const tags = new Set<string>();
  if (family) tags.add(family);
  if (task === 'embedding') tags.add('embedding');
  else tags.add('chat');
  if (/code|coder/.test(name)) tags.add('code');
  if (VISION.test(name)) tags.add('vision');
  return [...tags];
}

export function hostedEntry(id: string): HostedModelEntry {
  return { id, name: hostedModelName(id), provider: 'hosted', tags: hostedTags(id), task: hostedTask(id) };
}

/**
 * A hosted model's capabilities, from its id: an embedding model embeds; a chat model chats, streams,
 * calls tools and answers JSON (the API passes OpenAI's fields through), and reads images when it is a
 * vision model.
 */
export function hostedCapabilities(id: string): ModelCapabilities {
  const chat = hostedTask(id) === 'chat';
  return { chat, stream: chat, tools: chat, jsonOutput: chat, imageInput: chat && VISION.test(localName(id).toLowerCase()), embeddings: !chat };
}
