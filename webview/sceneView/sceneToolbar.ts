/** The scene view's toolbar: colour mode, X-ray, friction, normals (trail, ghost, pre-step under "more"), fit and export buttons. */
import { el } from '../dom.js';
import { button, checkbox, checkedOf, dropdown } from '../toolkit.js';
import { TRAIL_FRAMES } from './bodyTrail.js';
import { COLOR_MODES, type ColorMode } from './contactColors.js';

/** The options the toolbar's controls start from (the saved webview state). */
export interface ToolbarSaved {
  readonly colorMode?: ColorMode;
  readonly friction?: boolean;
  readonly normals?: boolean;
  readonly trail?: boolean;
  readonly ghost?: boolean;
  readonly pre?: boolean;
  readonly xray?: boolean;
}

/** The scene toolbar's controls, set from the saved state (defaults: state colours, X-ray, friction, normals and ghost on). */
export function toolbarControls(saved: ToolbarSaved | undefined) {
  const colorSelect = dropdown('scene-color', COLOR_MODES, saved?.colorMode ?? 'state');
  colorSelect.title = 'colour the contacts by state (open / stick / slip from the velocity after the step) or by a quantity';
  const xrayBox = checkbox('scene-xray', 'X-ray', saved?.xray ?? true);
  xrayBox.title = 'see-through bodies: the contacts and arrows inside a stack show (outlines stay)';
  const frictionBox = checkbox('scene-friction', 'friction', saved?.friction ?? true);
  frictionBox.title = 'friction impulse arrows (λt1·t1 + λt2·t2)';
  const normalsBox = checkbox('scene-normals', 'normals', saved?.normals ?? true);
  const trailBox = checkbox('scene-trail', 'trail', saved?.trail ?? false);
  trailBox.title = `the selected body's path over the last ${TRAIL_FRAMES} frames`;
  const ghostBox = checkbox('scene-ghost', 'ghost', saved?.ghost ?? true);
  const preBox = checkbox('scene-pre', 'pre-step', saved?.pre ?? false);
  preBox.title = 'draw the bodies where they were when the contacts were found (when the frame records it); otherwise after the step, as the energy readout';
  ghostBox.title = 'what-if ghost: after a what-if re-solve, each contact’s velocity after the step, recorded beside the alternative’s';
  return { colorSelect, xrayBox, frictionBox, normalsBox, trailBox, ghostBox, preBox };
}
export type ToolbarControls = ReturnType<typeof toolbarControls>;

/** What the toolbar's buttons and controls do in the scene view. */
export interface ToolbarActions {
  readonly frameAll: () => void;
  readonly frameSelection: () => void;
  readonly exportPng: () => void;
  /** X-ray was switched (before the redraw). */
  readonly xray: (on: boolean) => void;
  /** "pre-step" was switched (before the redraw): the bodies' poses change. */
  readonly pre: () => void;
  /** Any control changed: redraw, then save the state. */
  readonly redraw: () => void;
  readonly stateChanged: () => void;
}

/** The toolbar: its controls (the rarer ones folded into "more"), the fit and export buttons, and what a change of each redraws. */
export function buildToolbar(c: ToolbarControls, actions: ToolbarActions): HTMLElement {
  const toolbar = el('div', 'scene-toolbar buttons');
  toolbar.id = 'scene-toolbar';
  // the options used less often fold into "more" so the toolbar stays one line beside the editor
  const more = el('details', 'scene-more');
  more.id = 'scene-more';
  const moreBox = el('div', 'scene-more-box');
  more.append(el('summary', undefined, 'more'), moreBox);
  moreBox.append(c.trailBox, c.ghostBox, c.preBox);
  toolbar.append(
    c.colorSelect,
    c.xrayBox,
    c.frictionBox,
    c.normalsBox,
    more,
    button({ id: 'scene-frame-all', label: 'Fit all', title: 'fit every body in the view (F)', onClick: () => actions.frameAll() }),
    button({ id: 'scene-frame-selection', label: 'Fit selection', title: 'fit the selected contacts or bodies (S)', onClick: () => actions.frameSelection() }),
    button({ id: 'scene-export', label: 'PNG', title: 'export the scene view as PNG', onClick: () => actions.exportPng() }),
  );
  for (const box of [c.colorSelect, c.frictionBox, c.normalsBox, c.trailBox, c.ghostBox])
    box.addEventListener('change', () => {
      actions.redraw();
      actions.stateChanged();
    });
  c.xrayBox.addEventListener('change', () => {
    actions.xray(checkedOf(c.xrayBox));
    actions.redraw();
    actions.stateChanged();
  });
  c.preBox.addEventListener('change', () => {
    actions.pre();
    actions.redraw();
    actions.stateChanged();
  });
  return toolbar;
}
