/** What the webview tests read of the scene view (window.__sceneView). */

export interface SceneViewProbe {
  /** Page (CSS pixel) coordinates of a world point in the current view. */
  project(p: readonly [number, number, number]): { x: number; y: number; visible: boolean };
  readonly metresPerNs: number;
  /** Points of the drawn trail (0: none). */
  readonly trailPoints: number;
  /** The what-if ghost's arrow scale (0: no ghost). */
  readonly metresPerMps: number;
  readonly unit: number;
  readonly renders: number;
  readonly lastRenderMs: number;
  /** Split of the last setFrame (ms): body poses, contact glyphs, legend + trail, render. */
  readonly lastParts: { bodies: number; contacts: number; legend: number; render: number };
  /** Wait for the GPU after each render (gl.finish) so frame timings include the drawing. */
  finishEachRender: boolean;
  readonly webgl: boolean;
}
declare global {
  interface Window {
    __sceneView?: SceneViewProbe;
  }
}
