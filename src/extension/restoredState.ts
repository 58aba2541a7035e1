/**
 * A restored inspector panel's saved state comes back from the webview, which renders workspace data:
 * it is input, not a trusted instruction. Only a scenario panel whose scene file is a *.scene.json inside
 * one of the workspace folders is restored (pure: no vscode import, testable in Node).
 */
import * as path from 'node:path';
import type { SessionSource } from '../protocol/inspector.js';

/** Longest scenario name a restored panel may carry (names are one line in the scene file). */
export const MAX_RESTORED_NAME_CHARS = 500;

export interface RestoredPanel {
  readonly source: Extract<SessionSource, { kind: 'scenario' }>;
  readonly index: number;
}

const isInside = (file: string, folder: string): boolean => {
  const rel = path.relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

/**
 * The panel to restore from `state`, or null when the state is not a scenario panel whose scene file lies
 * in one of `folders` (absolute paths), or when the workspace is not trusted.
 */
export function restorablePanel(state: unknown, folders: readonly string[], trusted: boolean): RestoredPanel | null {
  if (!trusted || typeof state !== 'object' || state === null) return null;
  const s = state as { source?: unknown; index?: unknown };
  const src = s.source as { kind?: unknown; file?: unknown; scenario?: unknown } | undefined;
  if (typeof src !== 'object' || src === null || src.kind !== 'scenario') return null;
  const { file, scenario } = src;
  if (typeof file !== 'string' || typeof scenario !== 'string') return null;
  if (scenario === '' || scenario.length > MAX_RESTORED_NAME_CHARS || file.includes('\0')) return null;
  if (!path.isAbsolute(file) || !file.endsWith('.scene.json')) return null;
  const normal = path.resolve(file);
  if (!folders.some((f) => isInside(normal, path.resolve(f)))) return null;
  const index = typeof s.index === 'number' && Number.isSafeInteger(s.index) && s.index >= 0 ? s.index : 0;
  return { source: { kind: 'scenario', file: normal, scenario }, index };
}
