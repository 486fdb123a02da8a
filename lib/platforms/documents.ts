/**
 * Documents a model reads (a PDF, a text file), as Bedrock's Converse takes them: the limits a request
 * is held to, the name Converse requires of each, and how many input tokens one may count at most
 * (for the budget hold). The dialects read them from the wire (lib/dialects/documents.ts); which models
 * take them is managed/features.ts `managedDocuments`.
 */
import type { ContentPart } from './types';

type DocumentPart = Extract<ContentPart, { type: 'document' }>;

/** The largest document, decoded: Converse's limit (4.5 MB), so that the platform never refuses one the gateway let through. */
export const MAX_DOCUMENT_BYTES = 4_718_592;
/** The most documents one request may carry (Converse's limit). */
export const MAX_DOCUMENTS = 5;

/** Converse's name rule: letters, digits, single whitespace, hyphens, parentheses and square brackets, 1 to 200 characters. */
const NAME_LENGTH = 200;
const NOT_IN_NAME = /[^A-Za-z0-9\s\-()[\]]+/g;

/**
 * The name Converse requires of a document, from the one the client gave (Anthropic's `title`, OpenAI's
 * `filename`), made to fit Converse's rule: every other character becomes a space, runs of whitespace
 * one space, at most 200 characters; '' when nothing is left (namesFor then numbers it). AWS advises
 * a neutral name (a name reaches the model and could carry instructions): the client's own words are
 * kept only as far as the rule allows.
 */
export const documentName = (given: string | null | undefined): string =>
  (given ?? '')
    .replace(/\.(pdf|txt)$/i, '')
    .replace(NOT_IN_NAME, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, NAME_LENGTH)
    .trim();

/**
 * A request's documents named as Converse requires, each name once: a document without one is
 * `document N` (its place among the request's documents), a repeated name gets ` (2)`, ` (3)`, …
 */
export function nameDocuments(parts: DocumentPart[]): void {
  const seen = new Map<string, number>();
  parts.forEach((part, i) => {
    const name = part.name || `document ${i + 1}`;
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    part.name = count > 1 ? `${name.slice(0, NAME_LENGTH - 6).trim()} (${count})` : name;
  });
}

/**
 * What one PDF page may count as input at most: Anthropic documents 1,500 to 3,000 tokens of text a
 * page, and a page read as an image too counts about 1,600 (an image's allowance).
 */
export const PDF_PAGE_TOKENS = 4_600;
/** Claude's limit on a request's PDF pages (100): the most a PDF's pages are counted for. */
const MAX_PDF_PAGES = 100;

/** The pages of a PDF, where its page objects can be seen (not in compressed object streams): undefined where none can. */
function pdfPages(bytes: Buffer): number | undefined {
  const found = bytes.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return found > 0 ? found : undefined;
}

/**
 * An upper bound of a document's input tokens: a text's UTF-8 bytes (a byte-level tokenizer never makes
 * more tokens than bytes); a PDF's pages at PDF_PAGE_TOKENS each, or, where its pages cannot be counted,
 * a token for every 4 bytes (at least one page's, at most MAX_PDF_PAGES pages').
 */
export function documentTokenBound(part: DocumentPart): number {
  const bytes = Buffer.from(part.data, 'base64');
  if (part.format === 'txt') return bytes.length;
  const pages = pdfPages(bytes);
  const cap = MAX_PDF_PAGES * PDF_PAGE_TOKENS;
  return pages !== undefined
    ? Math.min(pages, MAX_PDF_PAGES) * PDF_PAGE_TOKENS
    : Math.min(cap, Math.max(PDF_PAGE_TOKENS, Math.ceil(bytes.length / 4)));
}
