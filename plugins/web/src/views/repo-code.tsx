/**
 * Source code as the pages show it: highlight.js by file name (plain text when no grammar fits),
 * in a table of numbered lines whose numbers are anchors (`#L10`; hearth.js highlights `#L10-L20`).
 */
import type { HLJSApi } from 'highlight.js';
import { lazy } from '@hearth/plugin-api';

/** highlight.js (about 5 MB of heap with its grammars) is loaded by the first page that highlights code. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const highlighter = lazy(() => require('highlight.js').default as HLJSApi);

/** Grammars by whole file name, for files without a telling extension. */
const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  containerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  'cmakelists.txt': 'cmake',
  gemfile: 'ruby',
  rakefile: 'ruby',
  jenkinsfile: 'groovy',
  '.bashrc': 'bash',
  '.profile': 'bash',
  '.gitconfig': 'ini',
  '.editorconfig': 'ini',
};

/** The highlight.js grammar for a file name, or null for plain text. */
export function languageOf(fileName: string): string | null {
  const lower = fileName.toLowerCase();
  if (BY_NAME[lower]) return BY_NAME[lower];
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = lower.slice(dot + 1);
  const language = highlighter().getLanguage(ext);
  if (!language || language.name === 'Plain text') return null;
  return ext;
}

const TAG = /<span[^>]*>|<\/span>|\n/g;

/**
 * Split highlight.js output (escaped text inside `<span class>` elements) into lines, closing the
 * spans still open at a line's end and reopening them on the next, so each line stands alone.
 */
export function splitHighlighted(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  let last = 0;
  for (const match of html.matchAll(TAG)) {
    line += html.slice(last, match.index);
    last = match.index! + match[0].length;
    if (match[0] === '\n') {
      lines.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else if (match[0] === '</span>') {
      open.pop();
      line += match[0];
    } else {
      open.push(match[0]);
      line += match[0];
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}

/** Lines of a text, highlighted as HTML when a grammar fits the file name; null means plain text. */
export function highlightLines(text: string, fileName: string): string[] | null {
  const language = languageOf(fileName);
  if (!language) return null;
  try {
    return splitHighlighted(highlighter().highlight(text, { language, ignoreIllegals: true }).value);
  } catch {
    return null;
  }
}

/** The lines of a text file, without the empty one after a final newline. */
export function textLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One source line: highlight.js's escaped HTML, or plain text that Preact escapes. */
export function CodeLine({ html, text }: { html?: string; text: string }) {
  return html !== undefined ? <code dangerouslySetInnerHTML={{ __html: html }} /> : <code>{text}</code>;
}

/** A line's two cells: its number, which is the anchor `L<n>` (`#L10`, ranges `#L10-L20`), and its code. */
export function LineCells({ number, html, text }: { number: number; html?: string; text: string }) {
  return (
    <>
      <td class="num">
        <a id={`L${number}`} href={`#L${number}`}>
          {number}
        </a>
      </td>
      <td class="line">
        <CodeLine html={html} text={text} />
      </td>
    </>
  );
}

/** A file's lines in a table of numbered, anchored lines. */
export function CodeTable({ text, fileName }: { text: string; fileName: string }) {
  const lines = textLines(text);
  const html = highlightLines(lines.join('\n'), fileName);
  return (
    <div class="blob">
      <table>
        <tbody>
          {lines.map((line, i) => (
            <tr>
              <LineCells number={i + 1} html={html?.[i]} text={line} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
