import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { CopyButton } from './ui';

/** The little of hast's node shape this file reads. */
interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/**
 * HTML the model wrote is shown as the text it is, never parsed into elements (rehype-sanitize, which
 * runs next, would drop it silently: a reply about HTML would lose its examples).
 */
function rawHtmlAsText() {
  const walk = (node: HastNode) =>
    node.children?.forEach((child, i, siblings) => {
      if (child.type === 'raw') siblings[i] = { type: 'text', value: child.value ?? '' };
      else walk(child);
    });
  return (tree: HastNode) => walk(tree);
}

function textOf(node: HastNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(textOf).join('');
}

/** A fenced code block: kept exactly as written (it scrolls rather than wraps), its language named, and a copy button. */
function CodeBlock({ node, children }: { node?: HastNode; children?: ReactNode }) {
  const code = node?.children?.find((c) => c.tagName === 'code');
  const classes = code?.properties?.className;
  const language = (Array.isArray(classes) ? classes : [])
    .map(String)
    .find((c) => c.startsWith('language-'))
    ?.slice('language-'.length);
  return (
    <div className="code-block">
      <div className="code-head">
        <span>{language ?? 'code'}</span>
        <CopyButton text={textOf(code).replace(/\n$/, '')} label="Copy code" />
      </div>
      <pre tabIndex={0}>{children}</pre>
    </div>
  );
}

const components: Components = {
  pre: CodeBlock as Components['pre'],
  // A model's link opens apart from the console, and tells the page it came from nothing.
  a: ({ href, children }) => (
    <a href={href || undefined} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  // Images are not fetched from wherever a model points (a tracking pixel, and the CSP allows only the
  // console's own origin): they are offered as links.
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow">
        {alt ? `Image: ${alt}` : 'Image'}
      </a>
    ) : (
      <span>{alt}</span>
    ),
  // Tables in a reply scroll in a box of their own, as the console's tables do.
  table: ({ children }) => (
    <div className="table-box" tabIndex={0}>
      <table>{children}</table>
    </div>
  ),
};

/**
 * A model's answer as chat consoles show it: Markdown with GitHub's extensions (lists, tables, code,
 * strikethrough, task lists), through react-markdown, which builds React elements (never HTML from
 * strings, so the CSP's Trusted Types are not in the way): raw HTML reads as text, script URLs are
 * emptied (react-markdown's URL rule), and rehype-sanitize (GitHub's schema) keeps only the elements
 * and attributes Markdown makes.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rawHtmlAsText, rehypeSanitize]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
