/**
 * Converse's document blocks (DocumentBlock: format, name, source.bytes or source.text), checked as
 * the service checks them (the API reference's name rule and formats; at most 5 documents of 4.5 MB
 * each, in user messages, for the models whose "Document chat" the supported-models table lists) and
 * counted among the input tokens.
 */
import type { FoundationModel } from './catalogue';
import { tokensFor } from './chat';
import { EmulatorError } from './shared';

export interface DocumentIn {
  format?: unknown;
  name?: unknown;
  source?: { bytes?: unknown; text?: unknown };
}

const validation = (message: string) => new EmulatorError(400, 'ValidationException', message);

const FORMATS = ['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md'];
/** Alphanumerics, hyphens, parentheses, square brackets and single whitespace characters; 1 to 200 of them. */
const NAME = /^(?!.*\s\s)[A-Za-z0-9\s\-()[\]]{1,200}$/;
const MAX_DOCUMENTS = 5;
const MAX_DOCUMENT_BYTES = 4_718_592;
/** What a PDF page counts for among the input tokens (the emulator reads no text out of it). */
const PDF_PAGE_TOKENS = 1_500;

const NO_DOCUMENTS = "This model doesn't support the document content block that you provided. Try again with a model that supports document input.";

/** The documents of one request, read one by one: each checked, the request's count and names too. */
export class DocumentReader {
  private readonly names = new Set<string>();
  tokens = 0;

  constructor(private readonly model: FoundationModel) {}

  get count(): number {
    return this.names.size;
  }

  /** One document block of message `i` (its role `role`), block `j`; counts its tokens. */
  read(document: DocumentIn, role: string, i: number, j: number): void {
    const at = `messages.${i}.content.${j}.document`;
    if (role !== 'user') throw validation(`${at}: documents are only allowed in user messages.`);
    if (!this.model.documents) throw validation(NO_DOCUMENTS);
    const name = typeof document.name === 'string' ? document.name : '';
    if (!NAME.test(name)) {
      throw validation(
        `The format of the value at ${at}.name is invalid. Provide a name that only contains alphanumeric characters, whitespace ` +
          "characters, hyphens, parentheses, and square brackets. The name can't contain more than one consecutive whitespace character.",
      );
    }
    const format = document.format === undefined ? 'txt' : typeof document.format === 'string' ? document.format : JSON.stringify(document.format);
    if (!FORMATS.includes(format)) {
      throw validation(
        `1 validation error detected: Value '${format}' at '${at}.format' failed to satisfy constraint: Member must satisfy enum value set: [${FORMATS.join(', ')}]`,
      );
    }
    const source = document.source ?? {};
    const bytes =
      typeof source.bytes === 'string' ? Buffer.from(source.bytes, 'base64') : typeof source.text === 'string' ? Buffer.from(source.text) : undefined;
    if (!bytes || bytes.length === 0) throw validation(`The document at ${at} has no content. Add bytes or text to its source and try again.`);
    if (bytes.length > MAX_DOCUMENT_BYTES) throw validation(`The document at ${at} is larger than 4.5 MB. Reduce its size and try again.`);
    if (format === 'pdf' && bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
      throw validation(`The document at ${at} could not be processed: it is not a valid pdf document.`);
    }
    if (this.names.has(name)) throw validation(`The document names in a request must be unique: '${name}' is used twice.`);
    this.names.add(name);
    if (this.names.size > MAX_DOCUMENTS) throw validation(`A request can include up to ${MAX_DOCUMENTS} documents.`);
    const pages = format === 'pdf' ? (bytes.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 1) : 0;
    this.tokens += format === 'pdf' ? pages * PDF_PAGE_TOKENS : tokensFor(bytes.toString('utf8').length);
  }
}
