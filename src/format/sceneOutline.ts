/**
 * Scenario files, the outline for CodeLenses: names and ranges of the scenarios of a possibly half-typed
 * file, from the lenient token scanner (jsonPositions.ts scanLooseTokens). Never throws.
 */
import { LineIndex, scanLooseTokens } from './jsonPositions.js';
import type { ScenarioOutline } from './sceneTypes.js';

// ---------------------------------------------------------------------------------------------------
// Outline for CodeLens (never throws)

interface Frame {
  readonly kind: '{' | '[';
  readonly start: number;
  readonly role: 'root' | 'scenarios' | 'scenario' | 'other';
  /** Last token end inside the container (for unclosed containers). */
  lastEnd: number;
  /** Object state: the current key and whether ':' has been seen after it. */
  currentKey: string | undefined;
  pendingKey: string | undefined;
  awaitingValue: boolean;
  outline?: { index: number; name: string | null; nameStart?: number; nameEnd?: number };
}

/**
 * Names and ranges of the scenarios of a possibly half-typed or invalid file, for CodeLenses: a
 * lenient bracket-matching scan over the tokens (comments, missing commas, bad values and unclosed
 * strings are tolerated; a mismatched bracket closes the nearest matching container). Never throws;
 * for a valid file the ranges equal parseSceneFile's.
 */
export function scenarioRanges(text: string): ScenarioOutline[] {
  try {
    return scanOutline(String(text ?? ''));
  } catch {
    return [];
  }
}

function scanOutline(text: string): ScenarioOutline[] {
  const tokens = scanLooseTokens(text);
  const lines = new LineIndex(text);
  const out: { index: number; name: string | null; start: number; end: number; nameStart?: number; nameEnd?: number }[] = [];
  const stack: Frame[] = [];
  let scenarioCount = 0;
  let rootSeen = false;

  const close = (fr: Frame, end: number): void => {
    if (fr.role === 'scenario' && fr.outline) {
      const o = fr.outline;
      out.push({ index: o.index, name: o.name, start: fr.start, end, nameStart: o.nameStart, nameEnd: o.nameEnd });
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.lastEnd = Math.max(parent.lastEnd, end);
  };

  for (const tok of tokens) {
    const top = stack[stack.length - 1];
    switch (tok.kind) {
      case '{':
      case '[': {
        if (!top && rootSeen) break; // text after the root value: ignore
        const key = top && top.kind === '{' && top.awaitingValue ? top.currentKey : undefined;
        let role: Frame['role'] = 'other';
        if (!top) {
          rootSeen = true;
          role = tok.kind === '{' ? 'root' : 'other';
        } else if (top.role === 'root' && tok.kind === '[' && key === 'scenarios') role = 'scenarios';
        else if (top.role === 'scenarios' && tok.kind === '{') role = 'scenario';
        if (top) {
          top.awaitingValue = false;
          top.pendingKey = undefined;
          top.lastEnd = tok.end;
        }
        const fr: Frame = { kind: tok.kind, start: tok.start, role, lastEnd: tok.end, currentKey: undefined, pendingKey: undefined, awaitingValue: false };
        if (role === 'scenario') fr.outline = { index: scenarioCount++, name: null };
        stack.push(fr);
        break;
      }
      case '}':
      case ']': {
        const want = tok.kind === '}' ? '{' : '[';
        let k = stack.length - 1;
        while (k >= 0 && stack[k].kind !== want) k--;
        if (k < 0) break; // stray closer: ignore
        // Containers above the match were never closed: they end at their last token.
        while (stack.length - 1 > k) {
          const fr = stack.pop()!;
          close(fr, fr.lastEnd);
        }
        const fr = stack.pop()!;
        close(fr, tok.end);
        break;
      }
      case ':':
        if (top && top.kind === '{' && top.pendingKey !== undefined) {
          top.currentKey = top.pendingKey;
          top.pendingKey = undefined;
          top.awaitingValue = true;
        }
        if (top) top.lastEnd = tok.end;
        break;
      case ',':
        if (top) {
          top.currentKey = undefined;
          top.pendingKey = undefined;
          top.awaitingValue = false;
          top.lastEnd = tok.end;
        }
        break;
      case 'string':
        if (!top) break;
        top.lastEnd = tok.end;
        if (top.kind === '{') {
          if (top.awaitingValue) {
            if (top.role === 'scenario' && top.currentKey === 'name' && top.outline && top.outline.nameStart === undefined) {
              top.outline.name = tok.value ?? '';
              top.outline.nameStart = tok.start;
              top.outline.nameEnd = tok.end;
            }
            top.awaitingValue = false;
          } else {
            top.pendingKey = tok.value;
          }
        }
        break;
      case 'literal':
        if (top) {
          top.lastEnd = tok.end;
          top.awaitingValue = false;
          top.pendingKey = undefined;
        }
        break;
    }
  }
  while (stack.length) {
    const fr = stack.pop()!;
    close(fr, fr.lastEnd);
  }
  out.sort((a, b) => a.index - b.index);
  return out.map((s) => ({
    index: s.index,
    name: s.name,
    range: lines.range(s.start, s.end),
    ...(s.nameStart !== undefined ? { nameRange: lines.range(s.nameStart, s.nameEnd!) } : {}),
  }));
}
