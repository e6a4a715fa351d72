/**
 * The text of an init SQL file, read once and linearly: its statements as PostgreSQL splits them,
 * what in it needs psql (a backslash command or `COPY … FROM stdin` outside strings, comments and
 * dollar quotes), and positions (UTF-16 offsets, the server's code-point offsets, line and column).
 *
 * The tokens are dbgate-query-splitter's (its scanToken with the PostgreSQL options: quotes,
 * double-quoted identifiers, dollar quotes, `--` and `/* *\/` comments), with two PostgreSQL
 * forms it lacks: `E'…\'…'` strings (backslash escapes) and nested block comments. Every pass is
 * linear in the file's length: the server's offsets are mapped through a table of the file's
 * surrogate pairs and line starts, never by re-reading the text before each statement.
 */
import type { ScannerContext } from 'dbgate-query-splitter/lib/splitQuery.js';
import { InputError } from './errors.js';

/** dbgate-query-splitter's tokenizer, loaded on first use (not on the CLI's start path). */
type ScanToken = (context: ScannerContext) => { type: string; length: number };
let scanner: Promise<{ scanToken: ScanToken; options: ScannerContext['options'] }> | null = null;
function loadScanner(): Promise<{ scanToken: ScanToken; options: ScannerContext['options'] }> {
  scanner ??= Promise.all([import('dbgate-query-splitter/lib/splitQuery.js'), import('dbgate-query-splitter')]).then(
    ([split, index]) => {
      // CommonJS modules: their exports are the default export under Node's ESM and in the bundle.
      const s = ((split as { default?: unknown }).default ?? split) as { scanToken: ScanToken };
      const i = ((index as { default?: unknown }).default ?? index) as { postgreSplitterOptions: ScannerContext['options'] };
      return { scanToken: s.scanToken, options: i.postgreSplitterOptions };
    },
  );
  return scanner;
}

/** Positions in one text: UTF-16 offsets (JavaScript) ↔ code-point offsets (the server's), lines. */
export class TextIndex {
  /** UTF-16 offset where each line starts (the first is 0). */
  private readonly lineStarts: number[] = [0];
  /** UTF-16 offset of each surrogate pair (one code point in two units). */
  private readonly pairs: number[] = [];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.lineStarts.push(i + 1);
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          this.pairs.push(i);
          i++;
        }
      }
    }
  }

  /** The code-point offset of UTF-16 offset `unit` (clamped to the text). */
  codePoint(unit: number): number {
    const u = Math.max(0, Math.min(unit, this.text.length));
    return u - countBelow(this.pairs, u, (p) => p + 1);
  }

  /** The UTF-16 offset of code-point offset `point` (clamped to the text). */
  unit(point: number): number {
    const p = Math.max(0, point);
    // The i-th pair (0-based) starts at code point pairs[i] - i.
    let lo = 0;
    let hi = this.pairs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.pairs[mid]! - mid < p) lo = mid + 1;
      else hi = mid;
    }
    return Math.min(p + lo, this.text.length);
  }

  /** 1-based line and column (in code points) of UTF-16 offset `unit`. */
  lineColumn(unit: number): { line: number; column: number } {
    const u = Math.max(0, Math.min(unit, this.text.length));
    const line = countBelow(this.lineStarts, u + 1, (s) => s);
    const start = this.lineStarts[line - 1] ?? 0;
    return { line, column: this.codePoint(u) - this.codePoint(start) + 1 };
  }

  /** The text of 1-based line `line`, without its line break. */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lineStarts[line];
    return this.text.slice(start, next === undefined ? undefined : next - 1);
  }
}

/** How many of the sorted `values` have key(value) < `limit` (binary search). */
function countBelow(values: number[], limit: number, key: (v: number) => number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(values[mid]!) < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A statement of a SQL file, positions in code points of the file (as the server counts). */
export interface StatementStart {
  /** 0-based offset where `text` starts (its leading comments included). */
  start: number;
  /** 0-based offset of its first code after leading comments. */
  offset: number;
  /** 1-based line of `offset`. */
  line: number;
  /** The statement as sent, without the closing semicolon. */
  text: string;
}

/** What needs psql in a file: a backslash command, or `COPY … FROM stdin`. */
export interface PsqlOnly {
  /** 1-based line. */
  line: number;
  /** The command, e.g. `\copy`, or `COPY … FROM stdin`. */
  command: string;
}

/** A file read once: its statements and what needs psql, in order. */
interface ScannedSql {
  index: TextIndex;
  statements: StatementStart[];
  /** Backslash commands outside strings, comments and dollar quotes (each one's line). */
  meta: PsqlOnly[];
  /** `COPY … FROM stdin` statements (their first line). */
  copyFromStdin: PsqlOnly[];
}

/** The scan passed `deadlineAt` (performance.now() ms): thrown by scanSql. */
export class ScanTimeout extends Error {
  constructor() {
    super('the init file was still being read at the deadline');
    this.name = 'ScanTimeout';
  }
}

/** Tokens between two deadline checks. */
const CHECK_EVERY = 8192;

const IDENT = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Length of the `E'…'` string at `pos` (backslash escapes and doubled quotes; to the end when open). */
function eStringLength(s: string, pos: number): number {
  let i = pos + 2;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === "'") {
      if (s[i + 1] === "'") i += 2;
      else return i + 1 - pos;
    } else i++;
  }
  return s.length - pos;
}

/** Length of the (nested, as PostgreSQL nests them) block comment at `pos` (to the end when open). */
function blockCommentLength(s: string, pos: number): number {
  let depth = 0;
  let i = pos;
  while (i < s.length) {
    if (s[i] === '/' && s[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (s[i] === '*' && s[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i - pos;
    } else i++;
  }
  return s.length - pos;
}

/**
 * Reads a SQL file once, in linear time: its statements (split at `;` outside strings, comments
 * and dollar quotes; a statement of comments alone is dropped), its backslash commands and
 * `COPY … FROM stdin` statements. Known limit: a SQL-standard function body (`BEGIN ATOMIC … END`,
 * PostgreSQL 14+) is split at its inner `;`. One function on purpose: one loop over the tokens,
 * its state (the statement under way) shared by every kind of token.
 * @param deadlineAt performance.now() value past which the scan stops
 * @throws ScanTimeout past `deadlineAt`
 */
export async function scanSql(text: string, deadlineAt = Infinity): Promise<ScannedSql> {
  const { scanToken, options } = await loadScanner();
  const index = new TextIndex(text);
  const statements: StatementStart[] = [];
  const meta: PsqlOnly[] = [];
  const copyFromStdin: PsqlOnly[] = [];
  const context = {
    options,
    source: text,
    position: 0,
    currentDelimiter: ';',
    end: text.length,
    wasDataOnLine: false,
    isCopyFromStdin: false,
    isCopyFromStdinCandidate: false,
    beginEndIdentLevel: 0,
  };
  // The statement under way: its start (comments included), first code, end of its last token,
  // and, for a COPY, its code with strings and comments blanked (to look for FROM stdin).
  let start = -1;
  let code = -1;
  let last = -1;
  let copy: string | null = null;
  const finish = (): void => {
    if (code >= 0) {
      const at = index.lineColumn(code);
      statements.push({
        start: index.codePoint(start),
        offset: index.codePoint(code),
        line: at.line,
        text: text.slice(start, last),
      });
      if (copy !== null && /\bFROM\s+STDIN\b/i.test(copy)) copyFromStdin.push({ line: at.line, command: 'COPY … FROM stdin' });
    }
    start = code = last = -1;
    copy = null;
  };
  let pos = 0;
  let tokens = 0;
  while (pos < text.length) {
    if (++tokens % CHECK_EVERY === 0 && performance.now() > deadlineAt) throw new ScanTimeout();
    const c = text[pos]!;
    let type: string;
    let length: number;
    if ((c === 'E' || c === 'e') && text[pos + 1] === "'" && !(pos > 0 && IDENT.test(text[pos - 1]!))) {
      type = 'string';
      length = eStringLength(text, pos);
    } else if (c === '$' && pos > 0 && IDENT.test(text[pos - 1]!)) {
      // Inside an identifier (`price$usd$`): PostgreSQL's identifiers may hold `$`, so no dollar
      // quote starts here (manual: "Identifiers and Key Words").
      type = 'data';
      length = 1;
    } else if (c === '/' && text[pos + 1] === '*') {
      type = 'comment';
      length = blockCommentLength(text, pos);
    } else {
      context.position = pos;
      const token = scanToken(context);
      type = token.type;
      length = token.length;
    }
    length = Math.max(1, Math.min(length, text.length - pos));
    switch (type) {
      case 'whitespace':
      case 'eoln':
        if (copy !== null) copy += ' ';
        break;
      case 'delimiter':
        finish();
        break;
      case 'comment':
        if (start < 0) start = pos;
        last = pos + length;
        if (copy !== null) copy += ' ';
        break;
      default: {
        if (start < 0) start = pos;
        if (code < 0) {
          code = pos;
          if (/^copy\b/i.test(text.slice(pos, pos + 5))) copy = '';
        }
        if (type === 'data' && c === '\\') {
          // A psql meta-command: psql reads the rest of the line as its arguments.
          const command = /\\(?:[A-Za-z]+|[^\sA-Za-z])?/y;
          command.lastIndex = pos;
          meta.push({ line: index.lineColumn(pos).line, command: command.exec(text)![0] });
          const eol = text.indexOf('\n', pos);
          length = (eol < 0 ? text.length : eol) - pos;
        }
        last = pos + length;
        if (copy !== null) copy += type === 'string' ? "''" : text.slice(pos, pos + length);
      }
    }
    pos += length;
  }
  finish();
  return { index, statements, meta, copyFromStdin };
}

/**
 * Refuses what needs psql, naming the first of it: a backslash meta-command, or `COPY … FROM
 * stdin` with its data in the file (as pg_dump writes it).
 * @throws InputError (init) naming the file and line
 */
export function refusePsqlOnly(label: string, scanned: Pick<ScannedSql, 'meta' | 'copyFromStdin'>): void {
  const [a, b] = [scanned.meta[0], scanned.copyFromStdin[0]];
  const at = a && b ? (b.line <= a.line ? b : a) : (a ?? b);
  if (!at) return;
  throw new InputError(
    'init',
    `${label}:${at.line}: ${at.command} ${at.command.startsWith('\\') ? 'is a psql meta-command' : 'with the data in the file needs psql'}; init files run through a SQL client, not psql`,
    'Use plain SQL (INSERT, or COPY from a server-side file), or run the file with psql in init-command: psql -v ON_ERROR_STOP=1 -f FILE',
  );
}
