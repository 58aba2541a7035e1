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
  /** Contact states (src/session/contactState.ts). */
  readonly stick: string;
  readonly slip: string;
  readonly open: string;
  /** Body outlines (edges). */
  readonly edge: string;
  /** Per-body fill colours: bodyColor(i) (a palette that separates neighbours, see bodyPalette). */
  readonly bodyColor: (i: number) => string;
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

/** Hue step between consecutive bodies: the golden angle, so neighbours in a stack or a row never share a hue. */
const GOLDEN_ANGLE = 137.508;
/** First body's hue (blue, the theme's usual body colour). */
const FIRST_HUE = 212;
/** Saturation of body fills: clear hues that stay behind the contact glyphs' theme colours. */
const BODY_SATURATION = 0.5;

/**
 * Body fill colours by body index: hues stepped by the golden angle (consecutive indices — box0, box1, … in a
 * stack — differ by ≈ 138°, and any two of the first ten by ≥ 20°), at one lightness for the theme.
 */
export function bodyPalette(lightness: number): (i: number) => string {
  const cache: string[] = [];
  return (i) => (cache[i] ??= hsl((FIRST_HUE + i * GOLDEN_ANGLE) % 360, BODY_SATURATION, lightness));
}

/** An HSL colour (h in degrees, s and l in 0…1) as #rrggbb. */
export function hsl(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): string => {
    const k = (n + h / 30) % 12;
    const v = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(255 * v)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** Relative luminance of a #rrggbb colour (0 black … 1 white), for "is the theme dark". */
function luminance(hex: string): number {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex.trim());
  if (!m) return 0;
  return (0.2126 * parseInt(m[1], 16) + 0.7152 * parseInt(m[2], 16) + 0.0722 * parseInt(m[3], 16)) / 255;
}

export function readSceneColors(root: Element = document.documentElement): SceneColors {
  const s = getComputedStyle(root);
  const fg = cssVar(s, '--vscode-foreground', '#cccccc');
  const background = cssVar(s, '--vscode-editor-background', '#1e1e1e');
  const dark = luminance(background) < 0.5;
  const highContrast = document.body.classList.contains('vscode-high-contrast') || document.body.classList.contains('vscode-high-contrast-light');
  const muted = cssVar(s, '--vscode-descriptionForeground', fg);
  return {
    background,
    foreground: fg,
    dynamicBody: cssVar(s, '--vscode-charts-blue', '#3794ff'),
    staticBody: muted,
    grid: cssVar(s, '--vscode-panel-border', muted),
    stick: cssVar(s, '--vscode-charts-green', '#89d185'),
    slip: cssVar(s, '--vscode-charts-orange', '#d18616'),
    open: muted,
    edge: highContrast ? cssVar(s, '--vscode-contrastBorder', fg) : dark ? '#0d0d0d' : '#262626',
    bodyColor: bodyPalette(dark && !highContrast ? 0.62 : highContrast ? 0.55 : 0.5),
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
