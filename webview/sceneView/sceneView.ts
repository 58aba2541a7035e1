/**
 * The scene view at the top of the inspector: the bodies and the current frame's contacts in 3D (three.js,
 * WebGL), in step with the timeline. Picking works both ways (click a contact or body → the inspector
 * selects its rows; select rows or a finding → the contacts are highlighted and "Frame selection" frames
 * them); hover shows the contact's numbers or the body's name. The camera is saved in the webview state.
 * It renders on demand (a frame, a camera move, a theme change), never in a loop.
 */
import {
  Box3,
  Color,
  DirectionalLight,
  HemisphereLight,
  Line,
  LineBasicMaterial,
  BufferGeometry,
  Float32BufferAttribute,
  Raycaster,
  Scene,
  Sphere,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import type { ContactView, FrameView, WhatIfView } from '../../src/protocol/inspector.js';
import { POSE_STRIDE, type SceneInfo } from '../../src/protocol/scene.js';
import { si, vec3 } from '../format.js';
import { el } from '../dom.js';
import { niceStep } from '../niceStep.js';
import { button, checkbox, checkedOf, dropdown, controlValue } from '../toolkit.js';
import { BodyLayer } from './bodyLayer.js';
import { ContactLayer, type GhostContact } from './contactLayer.js';
import { GhostBodies } from './ghostBodies.js';
import { OrbitCamera, type OrbitState } from './orbitCamera.js';
import { readSceneColors, type SceneColors } from './sceneColors.js';

/** A click or hover within this many CSS pixels of a contact's point picks it. */
const PICK_RADIUS_PX = 10;
/**
 * The longest λn arrow of the frame is about this many typical body sizes (half extents) long: arrows fit
 * the scene, and a stack's arrows stay shorter than one box.
 */
const LONGEST_ARROW_UNITS = 1.6;
/**
 * The arrow scale (a 1-2-5 step of N·s per metre) is re-fitted when the frame's longest λn arrow would be
 * longer than this factor × the target, or shorter than the target / this factor: arrows keep their scale
 * while playing through similar frames, and never vanish nor fill the view.
 */
const ARROW_RESCALE = 2.5;
/** Frames of body positions kept for trails. */
const TRAIL_FRAMES = 120;

export const COLOR_MODES = ['state', 'λn', 'excess speed', 'penetration', 'friction work', 'energy injected'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/** Per contact: the quantity a colour mode shows (null: not known for this contact). */
function quantity(mode: ColorMode, c: ContactView): number | null {
  switch (mode) {
    case 'λn':
      return c.lambdaN;
    case 'excess speed':
      return c.excess;
    case 'penetration':
      return c.depth;
    case 'friction work':
      return c.frictionPower;
    case 'energy injected':
      return c.injected ?? null;
    default:
      return null;
  }
}
const UNITS: Record<ColorMode, string> = { state: '', λn: 'N·s', 'excess speed': 'm/s', penetration: 'm', 'friction work': 'J', 'energy injected': 'J' };

export interface SceneViewState {
  readonly camera?: OrbitState;
  readonly colorMode?: ColorMode;
  readonly friction?: boolean;
  readonly normals?: boolean;
  readonly trail?: boolean;
  readonly ghost?: boolean;
  readonly pre?: boolean;
  readonly xray?: boolean;
  readonly height?: number;
  readonly open?: boolean;
}

export interface SceneViewHandlers {
  /** A contact was clicked (its key), or a body (its contacts' keys). */
  readonly pickContacts: (keys: readonly string[]) => void;
  readonly stateChanged: () => void;
  readonly exportPng: (dataUrl: string) => void;
}

/** What the webview tests read (window.__sceneView). */
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

/** The scene toolbar's controls, set from the saved state (defaults: state colours, X-ray, friction, normals and ghost on). */
function toolbarControls(saved: SceneViewState | undefined) {
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

export class SceneView {
  private readonly root: HTMLElement;
  private readonly details: HTMLDetailsElement;
  private readonly box: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly labels: HTMLElement;
  private readonly colorSelect: HTMLElement & { value: string };
  private readonly frictionBox: HTMLElement & { checked: boolean };
  private readonly normalsBox: HTMLElement & { checked: boolean };
  private readonly trailBox: HTMLElement & { checked: boolean };
  private readonly ghostBox: HTMLElement & { checked: boolean };
  private readonly preBox: HTMLElement & { checked: boolean };
  private readonly xrayBox: HTMLElement & { checked: boolean };
  private whatIf: WhatIfView | undefined;
  private renderer: WebGLRenderer | undefined;
  private readonly scene = new Scene();
  private readonly orbit: OrbitCamera | undefined;
  private readonly bodies: BodyLayer;
  /** Compare mode: the second run's bodies (ghostBodies.ts). */
  private readonly ghostBodies: GhostBodies;
  private readonly contacts: ContactLayer;
  private readonly trail: Line;
  private colors: SceneColors;
  private info: SceneInfo | undefined;
  private view: FrameView | undefined;
  private selected: ReadonlySet<number> = new Set();
  private findingContacts: ReadonlySet<number> = new Set();
  private selectedBodies = new Set<number>();
  private staticNames = new Set<string>(['world']);
  private unit = 0.1;
  private metresPerNs = 0;
  private framedOnce = false;
  /** The region the automatic fit showed first; kept while the camera is automatic (resizes re-fit it). */
  private autoFitBox: Box3 | undefined;
  /** The camera is still the automatic fit (no pointer, wheel or key on the canvas yet, no camera restored). */
  private autoFit = true;
  private pending = 0;
  /** Body positions of recently shown frames (session index → poses) for trails. */
  private readonly history = new Map<number, Float64Array>();
  /** Frames kept in `history` (positions only, 3 numbers per body: 24 KB a frame for the 1000-box pile). */
  private static readonly HISTORY_FRAMES = 2 * TRAIL_FRAMES;
  private readonly probe: SceneViewProbe;

  constructor(
    root: HTMLElement,
    private readonly handlers: SceneViewHandlers,
    saved: SceneViewState | undefined,
  ) {
    this.root = root;
    this.colors = readSceneColors();
    this.details = el('details');
    this.details.id = 'scene-details';
    this.details.open = saved?.open ?? true;
    const summary = el('summary');
    summary.append(
      el('h2', 'inline', 'Scene'),
      el('span', 'muted hint', ' drag to orbit, right-drag to pan, wheel to zoom; click a contact or body to select it'),
    );
    this.details.append(summary);
    const controls = toolbarControls(saved);
    this.colorSelect = controls.colorSelect;
    this.xrayBox = controls.xrayBox;
    this.frictionBox = controls.frictionBox;
    this.normalsBox = controls.normalsBox;
    this.trailBox = controls.trailBox;
    this.ghostBox = controls.ghostBox;
    this.preBox = controls.preBox;
    const toolbar = this.buildToolbar();
    this.box = el('div', 'scene-box');
    this.box.id = 'scene-box';
    if (saved?.height && saved.height >= 120) this.box.style.height = `${saved.height}px`;
    this.tip = el('div', 'scene-tip');
    this.tip.id = 'scene-tip';
    this.tip.hidden = true;
    this.labels = el('div', 'scene-labels');
    this.legend = el('div', 'scene-legend muted');
    this.legend.id = 'scene-legend';
    this.details.append(toolbar, this.box, this.legend);
    this.root.append(this.details);
    this.details.addEventListener('toggle', () => {
      this.handlers.stateChanged();
      if (this.details.open) this.resize();
    });

    this.bodies = new BodyLayer(this.scene);
    this.ghostBodies = new GhostBodies(this.scene);
    this.bodies.setXray(saved?.xray ?? true);
    this.contacts = new ContactLayer(this.scene);
    this.trail = new Line(new BufferGeometry(), new LineBasicMaterial());
    this.trail.frustumCulled = false;
    this.scene.add(this.trail);
    this.scene.add(new HemisphereLight(0xffffff, 0x444444, 2.2));
    const sun = new DirectionalLight(0xffffff, 1.6);
    sun.position.set(3, -2, 6);
    this.scene.add(sun);

    this.orbit = this.startRenderer(saved);
    new MutationObserver(() => {
      this.colors = readSceneColors();
      this.redraw();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });

    this.probe = this.makeProbe();
    window.__sceneView = this.probe;
  }

  /** The toolbar: its controls (the rarer ones folded into "more"), the fit and export buttons, and what a change of each redraws. */
  private buildToolbar(): HTMLElement {
    const toolbar = el('div', 'scene-toolbar buttons');
    toolbar.id = 'scene-toolbar';
    // the options used less often fold into "more" so the toolbar stays one line beside the editor
    const more = el('details', 'scene-more');
    more.id = 'scene-more';
    const moreBox = el('div', 'scene-more-box');
    more.append(el('summary', undefined, 'more'), moreBox);
    moreBox.append(this.trailBox, this.ghostBox, this.preBox);
    toolbar.append(
      this.colorSelect,
      this.xrayBox,
      this.frictionBox,
      this.normalsBox,
      more,
      button({ id: 'scene-frame-all', label: 'Fit all', title: 'fit every body in the view (F)', onClick: () => this.frameAll() }),
      button({ id: 'scene-frame-selection', label: 'Fit selection', title: 'fit the selected contacts or bodies (S)', onClick: () => this.frameSelection() }),
      button({ id: 'scene-export', label: 'PNG', title: 'export the scene view as PNG', onClick: () => this.exportPng() }),
    );
    for (const c of [this.colorSelect, this.frictionBox, this.normalsBox, this.trailBox, this.ghostBox])
      c.addEventListener('change', () => {
        this.redraw();
        this.handlers.stateChanged();
      });
    this.xrayBox.addEventListener('change', () => {
      this.bodies.setXray(checkedOf(this.xrayBox));
      this.redraw();
      this.handlers.stateChanged();
    });
    this.preBox.addEventListener('change', () => {
      if (this.view?.scene) this.bodies.update(this.shownPoses(this.view));
      this.redraw();
      this.handlers.stateChanged();
    });
    return toolbar;
  }

  /** The canvas and its WebGL renderer (or a line saying why there is none), the camera and the canvas's keys, pointer and resize handling. */
  private startRenderer(saved: SceneViewState | undefined): OrbitCamera | undefined {
    const canvas = el('canvas');
    canvas.id = 'scene-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute(
      'aria-label',
      'scene view: bodies and contacts of this frame (arrows orbit, shift+arrows pan, + and − zoom, F frame all, S frame selection)',
    );
    try {
      this.renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    } catch (err) {
      this.renderer = undefined;
      this.box.append(el('div', 'muted scene-unavailable', `3D view unavailable: WebGL could not start (${err instanceof Error ? err.message : String(err)})`));
    }
    if (this.renderer) {
      this.box.append(canvas, this.labels, this.tip);
      this.renderer.setPixelRatio(window.devicePixelRatio || 1);
      const orbit = new OrbitCamera(canvas, () => {
        this.schedule();
        this.handlers.stateChanged();
      });
      if (saved?.camera) {
        // a restored camera is the user's: no automatic fit moves it until a new source arrives
        orbit.state = saved.camera;
        this.framedOnce = true;
        this.autoFit = false;
      }
      canvas.addEventListener('keydown', (e) => {
        if (e.key === 'f' || e.key === 'F') {
          this.frameAll();
          e.preventDefault();
        } else if (e.key === 's' || e.key === 'S') {
          this.frameSelection();
          e.preventDefault();
        }
      });
      this.wirePointer(canvas);
      // until the user moves the camera, the automatic fit follows the viewport's size (the first frame can
      // arrive before the panel has its final layout)
      for (const ev of ['pointerdown', 'wheel', 'keydown'] as const)
        canvas.addEventListener(ev, () => {
          this.autoFit = false;
        });
      new ResizeObserver(() => {
        this.resize();
        // the same region as the first fit, to the new aspect: not the frame shown at the time of the resize
        // (a resize during playback framed the ball where it happened to be, and frame 1's ball left the view)
        if (this.autoFit && this.framedOnce) this.fit(this.autoFitBox ?? this.currentBounds(), false);
        this.handlers.stateChanged();
      }).observe(this.box);
      return orbit;
    }
    return undefined;
  }

  /** The test probe (window.__sceneView): projections, scales and render timings of this view. */
  private makeProbe(): SceneViewProbe {
    const self = this;
    return {
      project: (p) => this.projectToPage(p),
      get metresPerNs() {
        return self.metresPerNs;
      },
      get metresPerMps() {
        return self.metresPerMps;
      },
      get trailPoints() {
        return self.trail.geometry.getAttribute('position')?.count ?? 0;
      },
      get unit() {
        return self.unit;
      },
      renders: 0,
      lastRenderMs: 0,
      finishEachRender: false,
      lastParts: { bodies: 0, contacts: 0, legend: 0, render: 0 },
      get webgl() {
        return self.renderer !== undefined;
      },
    };
  }

  get state(): SceneViewState {
    return {
      ...(this.orbit ? { camera: this.orbit.state } : {}),
      colorMode: controlValue(this.colorSelect) as ColorMode,
      friction: checkedOf(this.frictionBox),
      normals: checkedOf(this.normalsBox),
      trail: checkedOf(this.trailBox),
      ghost: checkedOf(this.ghostBox),
      pre: checkedOf(this.preBox),
      xray: checkedOf(this.xrayBox),
      height: this.box.clientHeight,
      open: this.details.open,
    };
  }

  /** A new session: its bodies (shapes). `keepCamera`: the same source as before (or as the saved state). */
  setScene(info: SceneInfo | undefined, keepCamera: boolean): void {
    this.info = info;
    if (!keepCamera) {
      this.framedOnce = false;
      this.autoFit = true;
      this.autoFitBox = undefined;
    }
    this.view = undefined;
    this.history.clear();
    this.selectedBodies.clear();
    this.metresPerNs = 0;
    this.bodies.setBodies(info?.bodies ?? []);
    this.ghostBodies.setBodies(info);
    this.staticNames = new Set(
      (info?.bodies ?? [])
        .filter((b) => b.static)
        .map((b) => b.name)
        .concat('world'),
    );
    // typical body size: the median "radius" of the drawn bodies (glyph sizes and the arrow scale use it)
    const radii = (info?.bodies ?? [])
      .flatMap((b) => (b.shape.kind === 'sphere' ? [b.shape.radius] : b.shape.kind === 'box' ? [Math.min(...b.shape.halfExtents)] : []))
      .filter((r) => r > 0 && Number.isFinite(r))
      .sort((a, b) => a - b);
    this.unit = radii.length ? radii[Math.floor(radii.length / 2)] : 0.1;
    this.bodies.setMarkerSize(0.5 * this.unit);
    this.bodies.applyColors(this.colors, this.selectedBodies);
    this.placeLabels();
  }

  /** The frame to show (drawn before this returns). */
  setFrame(v: FrameView): void {
    const t0 = performance.now();
    this.view = v;
    this.ghostBodies.update(v.compare?.ghost);
    if (v.scene) {
      this.bodies.update(this.shownPoses(v));
      this.preBox.toggleAttribute('disabled', !v.scene.prePoses);
      const poses = v.scene.poses,
        n = Math.floor(poses.length / POSE_STRIDE),
        xyz = new Float64Array(3 * n);
      for (let b = 0; b < n; b++) {
        xyz[3 * b] = poses[POSE_STRIDE * b];
        xyz[3 * b + 1] = poses[POSE_STRIDE * b + 1];
        xyz[3 * b + 2] = poses[POSE_STRIDE * b + 2];
      }
      this.history.delete(v.index); // re-inserted as the newest
      this.history.set(v.index, xyz);
      if (this.history.size > SceneView.HISTORY_FRAMES) this.history.delete(this.history.keys().next().value as number);
    }
    this.fitArrowScale(v.contacts);
    if (!this.framedOnce && v.scene) {
      this.framedOnce = true;
      this.autoFitBox = this.currentBounds();
      this.fit(this.autoFitBox, false);
    } else if (this.autoFit && this.autoFitBox && v.scene && !this.autoFitBox.containsBox(this.bodies.bounds())) {
      // the automatic camera only widens: a frame whose bodies reach outside the region fitted so far is added to
      // it (the first frame drawn can be any frame of a playback, and frame 1's bodies must not be left above the
      // view); the bodies' bounds alone are tested per frame (contacts lie on them), the whole region on a miss
      this.fit(this.autoFitBox.union(this.currentBounds()), false);
    }
    this.redraw(performance.now() - t0);
  }

  /**
   * The λn arrow scale (N·s per metre, a 1-2-5 step, said in the legend) for the frame's longest λn: kept while
   * that arrow stays within ARROW_RESCALE of LONGEST_ARROW_UNITS body sizes, re-fitted otherwise.
   */
  private fitArrowScale(contacts: readonly ContactView[]): void {
    let longest = 0;
    for (const c of contacts) if (c.lambdaN > longest && Number.isFinite(c.lambdaN)) longest = c.lambdaN;
    if (!(longest > 0)) return; // no impulse in this frame: keep the scale (the legend says so)
    const target = LONGEST_ARROW_UNITS * this.unit;
    const length = longest * this.metresPerNs;
    if (this.metresPerNs > 0 && length <= ARROW_RESCALE * target && length >= target / ARROW_RESCALE) return;
    this.metresPerNs = 1 / niceStep(longest / target);
  }

  /** Forgets the what-if result without redrawing (a new frame follows). */
  clearWhatIf(): void {
    this.whatIf = undefined;
  }

  /** A what-if result for the shown frame (its ghost arrows), or undefined to clear it. */
  setWhatIf(w: WhatIfView | undefined): void {
    this.whatIf = w;
    if (this.view) this.redraw();
  }

  /** The poses drawn: before the step when asked for and recorded, else after it. */
  private shownPoses(v: FrameView): Float64Array {
    return checkedOf(this.preBox) && v.scene?.prePoses ? v.scene.prePoses : v.scene!.poses;
  }

  /** Selected contacts (frame indices) and the contacts named by a finding on this frame; `redraw` false when a setFrame follows. */
  setSelection(selected: ReadonlySet<number>, findings: ReadonlySet<number>, redraw = true): void {
    this.selected = selected;
    this.findingContacts = findings;
    if (redraw && this.view) this.redraw();
  }

  frameAll(notify = true): void {
    this.fit(this.currentBounds(), notify);
  }

  /** Every body, the ground's visible patch and the contact points of the frame shown. */
  private currentBounds(): Box3 {
    const box = this.bodies.bounds();
    for (const p of this.bodies.groundPoints()) box.expandByPoint(p);
    for (const c of this.view?.contacts ?? []) box.expandByPoint(new Vector3(...c.point));
    return box.isEmpty() ? new Box3(new Vector3(-1, -1, 0), new Vector3(1, 1, 1)) : box;
  }

  private fit(box: Box3, notify: boolean): void {
    if (!this.orbit) return;
    this.resize(); // the fit uses the viewport's current aspect
    this.orbit.frameBox(box.min, box.max);
    if (!notify) this.handlers.stateChanged();
  }

  /** Frames the selected contacts (or the selected bodies); frames all when nothing is selected. */
  frameSelection(): void {
    if (!this.orbit) return;
    const box = this.selectedBodies.size ? this.bodies.bounds(this.selectedBodies) : new Box3();
    for (const c of this.view?.contacts ?? []) if (this.selected.has(c.index)) box.expandByPoint(new Vector3(...c.point));
    if (box.isEmpty()) return this.frameAll();
    const s = box.getBoundingSphere(new Sphere());
    this.orbit.frame(s.center, Math.max(s.radius, 3 * this.unit));
  }

  /** The current picture as a PNG data URL (null without WebGL). */
  png(): string | null {
    if (!this.renderer) return null;
    this.render();
    return this.renderer.domElement.toDataURL('image/png');
  }

  private exportPng(): void {
    const url = this.png();
    if (url) this.handlers.exportPng(url);
  }

  private colorOf(mode: ColorMode, contacts: readonly ContactView[]): (c: ContactView) => string {
    const c = this.colors;
    if (mode === 'state') {
      this.legend.textContent = '';
      return (x) => (x.state === 'slip' ? c.slip : x.state === 'stick' ? c.stick : c.open);
    }
    let lo = Infinity,
      hi = -Infinity;
    for (const x of contacts) {
      const v = quantity(mode, x);
      if (v !== null && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    const a = new Color(c.rampLow),
      b = new Color(c.rampHigh),
      t = new Color();
    return (x) => {
      const v = quantity(mode, x);
      if (v === null || !Number.isFinite(v) || !(hi >= lo)) return c.open;
      return (
        '#' +
        t
          .copy(a)
          .lerp(b, hi > lo ? (v - lo) / (hi - lo) : 1)
          .getHexString()
      );
    };
  }

  private redraw(bodiesMs = 0): void {
    const t0 = performance.now();
    const v = this.view;
    if (this.renderer) this.renderer.setClearColor(new Color(this.colors.background), 1);
    this.bodies.applyColors(this.colors, this.selectedBodies);
    this.ghostBodies.applyColors(this.colors, this.colors.ghostAlternative);
    const mode = controlValue(this.colorSelect) as ColorMode;
    if (v) {
      this.contacts.update(v.contacts, v.scene?.friction, {
        colors: this.colors,
        colorOf: this.colorOf(mode, v.contacts),
        metresPerNs: this.metresPerNs,
        unit: this.unit,
        selected: this.selected,
        findings: this.findingContacts,
        showFriction: checkedOf(this.frictionBox),
        showNormals: checkedOf(this.normalsBox),
        onB: (c) => this.onB(c),
      });
      this.updateGhost(v);
      const t1 = performance.now();
      this.updateTrail(v.index);
      this.showLegend(mode, v.contacts);
      const t2 = performance.now();
      this.render();
      (this.probe as { lastParts: SceneViewProbe['lastParts'] }).lastParts = {
        bodies: bodiesMs,
        contacts: t1 - t0,
        legend: t2 - t1,
        render: performance.now() - t2,
      };
    } else this.render();
  }

  /** Arrows show what happens to b (not a) when a is static and b moves. */
  private onB(c: ContactView): boolean {
    return this.staticNames.has(c.bodyA) && !this.staticNames.has(c.bodyB);
  }

  /** Metres of arrow per m/s of the ghost (0: no ghost shown). */
  private metresPerMps = 0;

  private updateGhost(v: FrameView): void {
    const w = this.whatIf && this.whatIf.index === v.index && checkedOf(this.ghostBox) ? this.whatIf : undefined;
    const ghosts: GhostContact[] = [];
    let fastest = 0;
    for (const c of w?.contacts ?? []) {
      const at = v.contacts[c.index];
      if (!c.scene || !at) continue;
      // like the impulse arrows: the motion of b relative to a when only b moves
      const k = this.onB(at) ? -1 : 1;
      const flip = (x: readonly [number, number, number]): [number, number, number] => [k * x[0], k * x[1], k * x[2]];
      ghosts.push({ point: at.point, recorded: flip(c.scene.recordedVelocity), alternative: flip(c.scene.alternativeVelocity) });
      fastest = Math.max(fastest, Math.hypot(...c.scene.recordedVelocity), Math.hypot(...c.scene.alternativeVelocity));
    }
    this.metresPerMps = fastest > 0 && Number.isFinite(fastest) ? 1 / niceStep(fastest / (LONGEST_ARROW_UNITS * this.unit)) : 0;
    this.contacts.updateGhost(this.metresPerMps > 0 ? ghosts : [], this.metresPerMps, this.unit, this.colors.ghostRecorded, this.colors.ghostAlternative);
  }

  private showLegend(mode: ColorMode, contacts: readonly ContactView[]): void {
    const parts: string[] = [];
    const hasImpulse = this.view?.contacts.some((c) => c.lambdaN > 0) ?? false;
    if (this.metresPerNs > 0 && hasImpulse) {
      const ref = niceStep(this.unit);
      parts.push(`arrows: impulse on the moving body, ${si(ref, 'm', 2)} = ${si(ref / this.metresPerNs, 'N·s', 2)}`);
    } else parts.push('no impulses in this frame');
    if (this.ghostBodies.visible) parts.push('compare: run b’s bodies see-through in yellow');
    if (this.metresPerMps > 0 && this.whatIf) {
      const ref = niceStep(this.unit);
      parts.push(
        `what-if ghost: contact velocity after the step, recorded (foreground) beside ${this.whatIf.options.solver} (yellow); ${si(ref, 'm', 2)} = ${si(ref / this.metresPerMps, 'm/s', 2)}`,
      );
    }
    if (mode === 'state') parts.push('');
    else {
      const vals = contacts.map((c) => quantity(mode, c)).filter((x): x is number => x !== null && Number.isFinite(x));
      parts.push(
        vals.length
          ? `${mode}: ${si(Math.min(...vals), UNITS[mode])} … ${si(Math.max(...vals), UNITS[mode])} (low → high colour)`
          : `${mode}: not known for this frame`,
      );
    }
    this.legend.replaceChildren(...legendNodes(parts.filter(Boolean).join(' · '), mode === 'state' ? this.colors : null));
  }

  private updateTrail(index: number): void {
    const body = [...this.selectedBodies][0];
    const pts: number[] = [];
    if (checkedOf(this.trailBox) && body !== undefined) {
      for (let i = Math.max(0, index - TRAIL_FRAMES); i <= index; i++) {
        const p = this.history.get(i),
          o = 3 * body;
        if (p && o + 3 <= p.length && Number.isFinite(p[o])) pts.push(p[o], p[o + 1], p[o + 2]);
      }
    }
    this.trail.geometry.setAttribute('position', new Float32BufferAttribute(pts, 3));
    (this.trail.material as LineBasicMaterial).color.setStyle(this.colors.trail);
  }

  private placeLabels(): void {
    this.labels.textContent = '';
    for (const i of this.bodies.others()) {
      const b = this.info?.bodies[i];
      if (!b) continue;
      const l = el('span', 'scene-label', `${b.name} (${b.shape.kind === 'other' ? b.shape.type : b.shape.kind})`);
      l.dataset.body = String(i);
      this.labels.append(l);
    }
  }

  private moveLabels(): void {
    const r = this.box.getBoundingClientRect();
    for (const l of Array.from(this.labels.children) as HTMLElement[]) {
      const c = this.bodies.position(Number(l.dataset.body));
      const s = c ? this.projectToPage([c.x, c.y, c.z]) : null;
      l.hidden = !s?.visible;
      if (s) {
        l.style.left = `${s.x - r.left - window.scrollX + 8}px`;
        l.style.top = `${s.y - r.top - window.scrollY - 8}px`;
      }
    }
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      this.render();
    });
  }

  private render(): void {
    if (!this.renderer || !this.orbit || !this.details.open) return;
    const t0 = performance.now();
    this.renderer.render(this.scene, this.orbit.camera);
    if (this.probe.finishEachRender) this.renderer.getContext().finish();
    (this.probe as { renders: number }).renders++;
    (this.probe as { lastRenderMs: number }).lastRenderMs = performance.now() - t0;
    this.moveLabels();
  }

  private resize(): void {
    if (!this.renderer || !this.orbit) return;
    const w = this.box.clientWidth,
      h = this.box.clientHeight;
    if (w === 0 || h === 0) return;
    this.renderer.setSize(w, h, true);
    this.orbit.setAspect(w / h);
    this.render();
  }

  private projectToPage(p: readonly [number, number, number]): { x: number; y: number; visible: boolean } {
    const canvas = this.renderer?.domElement;
    if (!canvas || !this.orbit) return { x: NaN, y: NaN, visible: false };
    const v = new Vector3(p[0], p[1], p[2]).project(this.orbit.camera);
    const r = canvas.getBoundingClientRect();
    return {
      x: r.left + window.scrollX + ((v.x + 1) / 2) * r.width,
      y: r.top + window.scrollY + ((1 - v.y) / 2) * r.height,
      visible: v.z > -1 && v.z < 1 && Math.abs(v.x) <= 1 && Math.abs(v.y) <= 1,
    };
  }

  private hit(e: MouseEvent): { contact: ContactView | null; body: number | null } {
    const x = e.pageX,
      y = e.pageY;
    const contact = this.contacts.pick(x, y, PICK_RADIUS_PX, (p) => this.projectToPage(p));
    if (contact || !this.orbit) return { contact, body: null };
    const canvas = this.renderer!.domElement,
      r = canvas.getBoundingClientRect();
    const ray = new Raycaster();
    ray.setFromCamera(new Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1), this.orbit.camera);
    return { contact: null, body: this.bodies.pick(ray) };
  }

  private wirePointer(canvas: HTMLCanvasElement): void {
    let down: { x: number; y: number } | undefined;
    canvas.addEventListener('pointerdown', (e) => {
      down = { x: e.clientX, y: e.clientY };
    });
    canvas.addEventListener('pointerup', (e) => {
      // a click, not the end of a drag
      if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4 || e.button !== 0) return;
      down = undefined;
      const h = this.hit(e);
      if (h.contact) {
        this.selectedBodies.clear();
        this.handlers.pickContacts([h.contact.key]);
      } else if (h.body !== null) {
        this.selectedBodies = new Set([h.body]);
        const keys = (this.view?.contacts ?? [])
          .filter((c) => c.bodyA === this.info?.bodies[h.body!].name || c.bodyB === this.info?.bodies[h.body!].name)
          .map((c) => c.key);
        this.handlers.pickContacts(keys);
        this.redraw();
      }
    });
    canvas.addEventListener('pointermove', (e) => {
      if (e.buttons) {
        this.tip.hidden = true;
        return;
      }
      const h = this.hit(e);
      const text = h.contact ? contactTip(h.contact) : h.body !== null ? bodyTip(this.info, h.body, this.bodies.position(h.body)) : '';
      this.tip.hidden = text === '';
      this.tip.textContent = text;
      const r = this.box.getBoundingClientRect();
      this.tip.style.left = `${e.clientX - r.left + 12}px`;
      this.tip.style.top = `${e.clientY - r.top + 12}px`;
    });
    canvas.addEventListener('pointerleave', () => {
      this.tip.hidden = true;
    });
  }
}

function contactTip(c: ContactView): string {
  return (
    `contact #${c.index} ${c.bodyA}–${c.bodyB} · ${c.state} · λn ${si(c.lambdaN, 'N·s', 4)} · ‖λt‖ ${si(c.lambdaT, 'N·s', 4)} · depth ${si(c.depth, 'm')} · ` +
    `vn ${si(c.vnBefore, 'm/s')} → ${si(c.vnAfter, 'm/s')} · excess ${si(c.excess, 'm/s')} · at ${vec3(c.point)} m`
  );
}

/** The legend: its text, then (colour by state) a swatch per contact state in the scene's colours. */
function legendNodes(text: string, colors: SceneColors | null): Node[] {
  const out: Node[] = [];
  if (colors) {
    for (const [state, color, help] of [
      ['stick', colors.stick, 'closed, no slip'],
      ['slip', colors.slip, 'closed, ‖w_t‖ > 1 mm/s'],
      ['open', colors.open, 'the bodies part within the step (w_n·Δt > depth) or λn = 0'],
    ] as const) {
      const sw = el('span', 'swatch');
      sw.style.background = color;
      const item = el('span', 'legend-item');
      item.title = help;
      item.append(sw, document.createTextNode(state));
      out.push(item);
    }
    out.push(document.createTextNode('contacts of a finding and the selection enlarged · '));
  }
  out.push(document.createTextNode(text));
  return out;
}

function bodyTip(info: SceneInfo | undefined, i: number, at: Vector3 | null): string {
  const b = info?.bodies[i];
  if (!b) return '';
  const shape = b.shape.kind === 'other' ? b.shape.type : b.shape.kind;
  return `${b.name} · ${shape}${b.static ? ' · static' : ''}${at ? ` · at ${vec3([at.x, at.y, at.z])}` : ''}`;
}
