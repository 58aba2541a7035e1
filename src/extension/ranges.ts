/** 1-based source ranges (format layer) ↔ 0-based vscode.Range. */
import * as vscode from 'vscode';
import type { TextRange } from './worker/workerProtocol.js';

export function toRange(r: TextRange): vscode.Range {
  return new vscode.Range(Math.max(0, r.line - 1), Math.max(0, r.column - 1), Math.max(0, r.endLine - 1), Math.max(0, r.endColumn - 1));
}

export const SCENE_GLOB = '**/*.scene.json';
export const isSceneFile = (uri: vscode.Uri): boolean => uri.path.endsWith('.scene.json');
