/**
 * The scene view's colours, read from the VS Code theme's --vscode-* variables (light, dark and
 * high-contrast themes), with fallbacks for variables a theme does not define.
 */

export interface SceneColors {
  readonly background: string;
  readonly foreground: string;
  readonly dynamicBody: string;
  readonly staticBody: string;
  readonly grid: string;
  readonly sticking: string;
  readonly sliding: string;
  readonly separating: string;
  readonly normal: string;
  readonly friction: string;
  /** Contacts named by a finding. */
  readonly finding: string;
  /** Selected contacts and bodies. */
  readonly selection: string;
  /** Low / high end of the colour-by-quantity ramp. */
  readonly rampLow: string;
  readonly rampHigh: string;
  readonly trail: string;
  /** What-if ghost: the contact velocity after the step with the recorded λ / with the alternative's. */
  readonly ghostRecorded: string;
  readonly ghostAlternative: string;
}

function cssVar(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const v = style.getPropertyValue(name).trim();
  return v || fallback;
}

export function readSceneColors(root: Element = document.documentElement): SceneColors {
  const s = getComputedStyle(root);
  const fg = cssVar(s, '--vscode-foreground', '#cccccc');
  const muted = cssVar(s, '--vscode-descriptionForeground', fg);
  return {
    background: cssVar(s, '--vscode-editor-background', '#1e1e1e'),
    foreground: fg,
    dynamicBody: cssVar(s, '--vscode-charts-blue', '#3794ff'),
    staticBody: muted,
    grid: cssVar(s, '--vscode-panel-border', muted),
    sticking: cssVar(s, '--vscode-charts-green', '#89d185'),
    sliding: cssVar(s, '--vscode-charts-orange', '#d18616'),
    separating: muted,
    normal: fg,
    friction: cssVar(s, '--vscode-charts-purple', '#b180d7'),
    finding: cssVar(s, '--vscode-errorForeground', '#f85149'),
    selection: cssVar(s, '--vscode-focusBorder', '#0078d4'),
    rampLow: cssVar(s, '--vscode-charts-blue', '#3794ff'),
    rampHigh: cssVar(s, '--vscode-charts-red', '#f14c4c'),
    trail: cssVar(s, '--vscode-editorCursor-foreground', fg),
    ghostRecorded: fg,
    ghostAlternative: cssVar(s, '--vscode-charts-yellow', '#cca700'),
  };
}
