/**
 * The functions of a TypeScript file and their lengths in lines, found without a parser (the project's
 * TypeScript is the native compiler, which has no JavaScript API): strings, template literals, comments
 * and regular expressions are masked, braces matched, and a block counts as a function body when the code
 * before it is a parameter list (`name(…) {`, `function name(…): T {`, `constructor(…) {`) or an arrow
 * (`=> {`). Control blocks (`if (…) {`, `for (…) {`, `catch (e) {` …), classes and object literals do not.
 */

export interface FunctionSpan {
  /** The function's name as written (`Class.method` is not resolved; arrows take the name they are assigned to). */
  readonly name: string;
  /** 1-based line of the opening brace of its body, and of the closing brace. */
  readonly firstLine: number;
  readonly lastLine: number;
  readonly lines: number;
}

const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'typeof', 'await', 'yield']);
/** After these characters a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await']);

/** The source with the contents of strings, templates, comments and regular expressions replaced by spaces (newlines kept). */
export function maskSource(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  /** Stack of open template literals: the brace depth at which each `${` resumes the template. */
  const templates: number[] = [];
  let depth = 0;
  let last = ''; // last significant character of code
  let lastWord = '';
  let i = 0;
  const n = src.length;
  const scanTemplate = (start: number): number => {
    // from inside a template (just after ` or }), to the closing ` (returned: index after it) or a `${` (pushed)
    let k = start;
    while (k < n) {
      const c = src[k];
      if (c === '\\') k += 2;
      else if (c === '`') {
        blank(start, k);
        return k + 1;
      } else if (c === '$' && src[k + 1] === '{') {
        blank(start, k);
        templates.push(depth);
        depth++;
        return -(k + 2);
      } else k++;
    }
    blank(start, n);
    return n;
  };
  while (i < n) {
    const c = src[i];
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && d === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let k = i + 1;
      while (k < n && src[k] !== c && src[k] !== '\n') k += src[k] === '\\' ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
      last = c;
      lastWord = '';
    } else if (c === '`') {
      const r = scanTemplate(i + 1);
      i = r < 0 ? -r : r;
      last = '`';
      lastWord = '';
    } else if (c === '/' && (REGEX_AFTER.has(last) || REGEX_AFTER_WORDS.has(lastWord))) {
      let k = i + 1;
      let inClass = false;
      while (k < n && src[k] !== '\n') {
        const e = src[k];
        if (e === '\\') k += 2;
        else if (e === '/' && !inClass) break;
        else {
          if (e === '[') inClass = true;
          else if (e === ']') inClass = false;
          k++;
        }
      }
      blank(i + 1, k);
      i = k + 1;
      while (i < n && /[a-z]/i.test(src[i])) i++;
      last = '/';
      lastWord = '';
    } else if (c === '{') {
      depth++;
      last = c;
      lastWord = '';
      i++;
    } else if (c === '}') {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        const r = scanTemplate(i + 1);
        i = r < 0 ? -r : r;
        last = '`';
      } else {
        last = c;
        i++;
      }
      lastWord = '';
    } else if (/\s/.test(c)) i++;
    else if (/[\w$]/.test(c)) {
      let k = i;
      while (k < n && /[\w$]/.test(src[k])) k++;
      lastWord = src.slice(i, k);
      last = 'w';
      i = k;
    } else {
      last = c;
      lastWord = '';
      i++;
    }
  }
  return out.join('');
}

/** Index of the `(` that matches the `)` at `close` in masked code, or -1. */
function openParen(code: string, close: number): number {
  let level = 0;
  for (let k = close; k >= 0; k--) {
    if (code[k] === ')') level++;
    else if (code[k] === '(' && --level === 0) return k;
  }
  return -1;
}

/** The function name a body opening at `brace` belongs to, or null when the block is not a function body. */
function functionAt(code: string, brace: number): string | null {
  let k = brace - 1;
  while (k >= 0 && /\s/.test(code[k])) k--;
  if (code[k] === '>' && code[k - 1] === '=') {
    // arrow: name it by what it is assigned to (`const f = (…) => {`, `f: (…) => {`), else "arrow"
    const head = code.slice(Math.max(0, k - 600), k - 1);
    const m = /([\w$]+)\s*(?::[^=;{}]*)?=\s*(?:async\s*)?(?:\([\s\S]*\)|[\w$]+)\s*(?::[^=;{}]*)?$/.exec(head);
    const p = /([\w$]+)\s*:\s*(?:async\s*)?(?:\([\s\S]*\)|[\w$]+)\s*$/.exec(head);
    return m?.[1] ?? p?.[1] ?? 'arrow';
  }
  // a return type annotation between the parameter list and the body: `): Type {`
  if (code[k] !== ')') {
    const tail = code.slice(Math.max(0, k - 300), k + 1);
    const t = /\)\s*:\s*[\w$.<>[\],|&\s]+$/.exec(tail);
    if (!t) return null;
    k = k - tail.length + 1 + t.index;
  }
  const open = openParen(code, k);
  if (open < 0) return null;
  let w = open - 1;
  while (w >= 0 && /\s/.test(code[w])) w--;
  // generic parameters `name<T>(`
  if (code[w] === '>') {
    let level = 0;
    for (; w >= 0; w--) {
      if (code[w] === '>') level++;
      else if (code[w] === '<' && --level === 0) break;
    }
    w--;
    while (w >= 0 && /\s/.test(code[w])) w--;
  }
  let s = w;
  while (s >= 0 && /[\w$]/.test(code[s])) s--;
  const word = code.slice(s + 1, w + 1);
  if (word === '' || CONTROL.has(word)) return null;
  if (word === 'function') return 'function';
  return word;
}

/** Every function body in a TypeScript source, with its length in lines (opening to closing brace). */
export function functionSpans(src: string): FunctionSpan[] {
  const code = maskSource(src);
  const lineStarts = [0];
  for (let k = 0; k < code.length; k++) if (code[k] === '\n') lineStarts.push(k + 1);
  const lineOf = (pos: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const stack: { pos: number; name: string | null }[] = [];
  const spans: FunctionSpan[] = [];
  for (let k = 0; k < code.length; k++) {
    const c = code[k];
    if (c === '{') stack.push({ pos: k, name: functionAt(code, k) });
    else if (c === '}') {
      const open = stack.pop();
      if (open?.name) {
        const firstLine = lineOf(open.pos);
        const lastLine = lineOf(k);
        spans.push({ name: open.name, firstLine, lastLine, lines: lastLine - firstLine + 1 });
      }
    }
  }
  return spans;
}
