/**
 * Documents from the wire: Anthropic's `document` blocks (a base64 PDF or text, or plain text) and
 * OpenAI's `file` parts (a data: URL), checked so that the platform never sees one it would refuse:
 * a PDF that is a PDF, text that is UTF-8, at most MAX_DOCUMENT_BYTES each and MAX_DOCUMENTS a
 * request (lib/platforms/documents.ts). Nothing is fetched (a URL) or looked up (a file id): the
 * gateway stores no files.
 */
import { documentName, MAX_DOCUMENT_BYTES, MAX_DOCUMENTS, nameDocuments } from '../platforms/documents';
import { documentsOf, type ChatTurn, type ContentPart, type DocumentFormat } from '../platforms/types';
import { BASE64, invalid } from './common';
import type { DocumentBlock } from './schemas/anthropic-messages';
import type { FilePart } from './schemas/openai-chat';

type DocumentPart = Extract<ContentPart, { type: 'document' }>;

const FORMATS: Record<string, DocumentFormat> = { 'application/pdf': 'pdf', 'text/plain': 'txt' };
const MB = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** A document's bytes checked: within the size limit, and what its format says (a PDF's header; text in UTF-8). */
function checked(format: DocumentFormat, bytes: Buffer, name: string, param: string): DocumentPart {
  if (bytes.length === 0) throw invalid(param, 'the document is empty');
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    throw invalid(param, `the document is ${bytes.length} bytes; the limit is ${MAX_DOCUMENT_BYTES} bytes (${MB(MAX_DOCUMENT_BYTES)})`);
  }
  if (format === 'pdf' && bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw invalid(param, 'the data is not a PDF (it does not start with %PDF-)');
  if (format === 'txt') {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw invalid(param, 'a text/plain document must be UTF-8');
    }
  }
  return { type: 'document', format, name, data: bytes.toString('base64') };
}

/** A document given as base64 with its media type (PDF or plain text). */
export function base64Document(mediaType: string, data: string, name: string, param: string): DocumentPart {
  const format = FORMATS[mediaType.toLowerCase()];
  if (!format) throw invalid(param, `the document type must be application/pdf or text/plain, not '${mediaType.slice(0, 100)}'`);
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) throw invalid(param, 'the document data must be base64');
  // The size is known from the text's length: a document far over the limit is refused before it is decoded.
  if ((data.length / 4) * 3 - 2 > MAX_DOCUMENT_BYTES) {
    throw invalid(param, `the document is over the limit of ${MAX_DOCUMENT_BYTES} bytes (${MB(MAX_DOCUMENT_BYTES)})`);
  }
  return checked(format, Buffer.from(data, 'base64'), name, param);
}

/** A document given as plain text. */
export const textDocument = (text: string, name: string, param: string): DocumentPart => checked('txt', Buffer.from(text, 'utf8'), name, param);

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/i;

/** A document given as a data: URL (OpenAI's file part `file_data`), base64 only. */
export function dataUrlDocument(url: string, name: string, param: string): DocumentPart {
  const match = DATA_URL.exec(url);
  if (!match || !/;base64$/i.test(match[2] ?? '')) throw invalid(param, 'must be a data: URL with base64 bytes (data:application/pdf;base64,...)');
  return base64Document(match[1] ?? '', url.slice(match[0].length), name, param);
}

/**
 * The request as a whole carries at most MAX_DOCUMENTS documents, named as Converse requires (each
 * once; `document N` where the client gave none).
 */
export function checkDocuments(turns: ChatTurn[], param: string): void {
  const documents = turns.flatMap((turn) => documentsOf(turn.content));
  if (documents.length > MAX_DOCUMENTS)
    throw invalid(param, `a request may carry at most ${MAX_DOCUMENTS} documents (this one has ${documents.length})`);
  nameDocuments(documents);
}

/** Anthropic's document block (lib/dialects/anthropic-messages.ts) as a document part; its title is its name. */
export function anthropicDocument(block: DocumentBlock, at: string): DocumentPart {
  const { source } = block;
  const name = documentName(block.title);
  if (source.type === 'base64') return base64Document(source.media_type, source.data, name, `${at}.source.data`);
  if (source.type === 'text') return textDocument(source.data, name, `${at}.source.data`);
  if (source.type === 'url') {
    throw invalid(
      `${at}.source`,
      'document URLs are not fetched: send the document as base64 ({"type": "base64", "media_type", "data"})',
      'document_url_not_supported',
    );
  }
  throw invalid(`${at}.source`, 'file ids need stored files, and this service stores none: send the document as base64');
}

/** OpenAI's file part (lib/dialects/openai-chat.ts) as a document part: its file_data, named by its filename. */
export function fileDocument(file: FilePart['file'], at: string): DocumentPart {
  if (file.file_data === undefined) {
    throw invalid(`${at}.file_id`, 'file ids need stored files, and this service stores none: send the file as file_data (a data: URL)');
  }
  return dataUrlDocument(file.file_data, documentName(file.filename), `${at}.file_data`);
}
