/**
 * Documents as the dialects read them and the budget hold counts them (lib/dialects/documents.ts,
 * lib/platforms/documents.ts): Converse's name rule, its size limit, and a bound that covers a PDF's pages.
 */
import { promptTokenBound } from '../../lib/budgets/reservations';
import { base64Document, dataUrlDocument } from '../../lib/dialects/documents';
import { documentName, documentTokenBound, MAX_DOCUMENT_BYTES, nameDocuments, PDF_PAGE_TOKENS } from '../../lib/platforms/documents';
import type { ContentPart } from '../../lib/platforms/types';
import { refusal } from '../helpers/dialects';

type DocumentPart = Extract<ContentPart, { type: 'document' }>;

const CONVERSE_NAME = /^(?!.*\s\s)[A-Za-z0-9\s\-()[\]]{1,200}$/;
const pdfOf = (pages: number) =>
  Buffer.from(`%PDF-1.7\n${Array.from({ length: pages }, (_, i) => `${i + 4} 0 obj << /Type /Page >> endobj\n`).join('')}<< /Type /Pages >>\n%%EOF`);
const part = (name: string): DocumentPart => ({ type: 'document', format: 'txt', name, data: 'aGk=' });

describe('document names', () => {
  test.each([
    ['Q3: final/v2.pdf', 'Q3 final v2'],
    ['  report\t\t(draft) [2]  ', 'report (draft) [2]'],
    ['résumé', 'r sum'],
    ['../../etc/passwd', 'etc passwd'],
    ['x'.repeat(300), 'x'.repeat(200)],
  ])('%j becomes %j, which Converse accepts', (given, name) => {
    expect(documentName(given)).toBe(name);
    expect(name).toMatch(CONVERSE_NAME);
  });

  test('documents without a name are numbered, and a repeated name gets a suffix', () => {
    const parts = [part(''), part('notes'), part('notes'), part('')];
    nameDocuments(parts);
    expect(parts.map((p) => p.name)).toEqual(['document 1', 'notes', 'notes (2)', 'document 4']);
  });
});

describe('document limits', () => {
  test('a document over 4.5 MB is refused naming the field; one at the limit is accepted', () => {
    const over = Buffer.alloc(MAX_DOCUMENT_BYTES + 3, 'a').toString('base64');
    expect(refusal(() => base64Document('text/plain', over, 'big', 'messages.0.content.0.source.data'))).toMatchObject({
      param: 'messages.0.content.0.source.data',
      message: expect.stringContaining('4718592 bytes'),
    });
    expect(base64Document('text/plain', Buffer.alloc(MAX_DOCUMENT_BYTES, 'a').toString('base64'), 'big', 'p').format).toBe('txt');
  });

  test("OpenAI's file_data must be a base64 data: URL of a PDF or text", () => {
    expect(dataUrlDocument(`data:application/pdf;base64,${pdfOf(1).toString('base64')}`, 'a', 'p').format).toBe('pdf');
    expect(refusal(() => dataUrlDocument('https://example.com/a.pdf', 'a', 'p')).message).toMatch(/data: URL/);
    expect(refusal(() => dataUrlDocument('data:image/png;base64,aGk=', 'a', 'p')).message).toMatch(/application\/pdf or text\/plain/);
  });
});

describe('the budget hold of a document', () => {
  test("a PDF counts its pages at the per-page bound; a text its bytes; one whose pages cannot be seen, a page's at least", () => {
    const doc = (format: 'pdf' | 'txt', bytes: Buffer): DocumentPart => ({ type: 'document', format, name: 'd', data: bytes.toString('base64') });
    expect(documentTokenBound(doc('pdf', pdfOf(3)))).toBe(3 * PDF_PAGE_TOKENS);
    expect(documentTokenBound(doc('txt', Buffer.from('héllo')))).toBe(6);
    expect(documentTokenBound(doc('pdf', Buffer.from('%PDF-1.7 compressed')))).toBe(PDF_PAGE_TOKENS);
  });

  test('the prompt bound grows by each document', () => {
    const plain = promptTokenBound({ messages: [{ role: 'user', content: 'Read.' }] });
    const withPdf = promptTokenBound({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', format: 'pdf', name: 'd', data: pdfOf(2).toString('base64') },
            { type: 'text', text: 'Read.' },
          ],
        },
      ],
    });
    expect(withPdf - plain).toBeGreaterThanOrEqual(2 * PDF_PAGE_TOKENS);
  });
});
