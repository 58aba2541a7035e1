/** Worker progress (message, fraction 0…1 or null) → a VS Code progress notification (increments in %). */
import type * as vscode from 'vscode';

export function fractionReporter(progress: vscode.Progress<{ message?: string; increment?: number }>): (message: string, fraction: number | null) => void {
  let last = 0;
  return (message, fraction) => {
    if (fraction === null) {
      progress.report({ message });
      return;
    }
    const increment = Math.max(0, 100 * fraction - last);
    last = Math.max(last, 100 * fraction);
    progress.report({ message, increment });
  };
}
