/**
 * The scene view at the top of the inspector: the bodies and the current frame's contacts in 3D (three.js,
 * WebGL), in step with the timeline. Picking works both ways (click a contact or body → the inspector
 * selects its rows; select rows or a finding → the contacts are highlighted and "Frame selection" frames
 * them); hover shows the contact's numbers or the body's name. The camera is saved in the webview state.
 * It renders on demand (a frame, a camera move, a theme change), never in a loop.
 */
import { Box3, Color, DirectionalLight, HemisphereLight, Raycaster, Scene, Sphere, Vector2, Vector3, WebGLRenderer } from 'three';
import type { ContactView, FrameView, WhatIfView } from '../../src/protocol/inspector.js';
import type { SceneInfo } from '../../src/protocol/scene.js';
import { el } from '../dom.js';
import { niceStep } from '../niceStep.js';
import { checkedOf, controlValue } from '../toolkit.js';
import { BodyLayer } from './bodyLayer.js';
import { BodyTrail } from './bodyTrail.js';
import { type ColorMode, contactColorOf, legendNodes, legendText } from './contactColors.js';
import { ContactLayer } from './contactLayer.js';
import { GhostBodies } from './ghostBodies.js';
import { OrbitCamera, type OrbitState } from './orbitCamera.js';
import { readSceneColors, type SceneColors } from './sceneColors.js';
import type { SceneViewProbe } from './sceneProbe.js';
import { bodyTip, contactTip } from './sceneTips.js';
import { buildToolbar, type ToolbarControls, toolbarControls } from './sceneToolbar.js';
import { whatIfGhosts } from './whatIfGhost.js';

export { COLOR_MODES, type ColorMode } from './contactColors.js';
export type { SceneViewProbe } from './sceneProbe.js';

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

export class SceneView {
  private readonly root: HTMLElement;
  private readonly details: HTMLDetailsElement;
  private readonly box: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly labels: HTMLElement;
  /** The toolbar's colour mode and options (sceneToolbar.ts). */
  private readonly controls: ToolbarControls;
  private whatIf: WhatIfView | undefined;
  private renderer: WebGLRenderer | undefined;
  private readonly scene = new Scene();
  private readonly orbit: OrbitCamera | undefined;
  private readonly bodies: BodyLayer;
  /** Compare mode: the second run's bodies (ghostBodies.ts). */
  private readonly ghostBodies: GhostBodies;
  private readonly contacts: ContactLayer;
  private readonly trail: BodyTrail;
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
    this.controls = toolbarControls(saved);
    const toolbar = buildToolbar(this.controls, {
      frameAll: () => this.frameAll(),
      frameSelection: () => this.frameSelection(),
      exportPng: () => this.exportPng(),
      xray: (on) => this.bodies.setXray(on),
      pre: () => {
        if (this.view?.scene) this.bodies.update(this.shownPoses(this.view));
      },
      redraw: () => this.redraw(),
      stateChanged: () => this.handlers.stateChanged(),
    });
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
    this.trail = new BodyTrail(this.scene);
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
        return self.trail.points;
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
      colorMode: controlValue(this.controls.colorSelect) as ColorMode,
      friction: checkedOf(this.controls.frictionBox),
      normals: checkedOf(this.controls.normalsBox),
      trail: checkedOf(this.controls.trailBox),
      ghost: checkedOf(this.controls.ghostBox),
      pre: checkedOf(this.controls.preBox),
      xray: checkedOf(this.controls.xrayBox),
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
    this.trail.clear();
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
      this.controls.preBox.toggleAttribute('disabled', !v.scene.prePoses);
      this.trail.record(v.index, v.scene.poses);
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
    return checkedOf(this.controls.preBox) && v.scene?.prePoses ? v.scene.prePoses : v.scene!.poses;
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

  private redraw(bodiesMs = 0): void {
    const t0 = performance.now();
    const v = this.view;
    if (this.renderer) this.renderer.setClearColor(new Color(this.colors.background), 1);
    this.bodies.applyColors(this.colors, this.selectedBodies);
    this.ghostBodies.applyColors(this.colors, this.colors.ghostAlternative);
    const mode = controlValue(this.controls.colorSelect) as ColorMode;
    if (v) {
      this.contacts.update(v.contacts, v.scene?.friction, {
        colors: this.colors,
        colorOf: contactColorOf(mode, v.contacts, this.colors),
        metresPerNs: this.metresPerNs,
        unit: this.unit,
        selected: this.selected,
        findings: this.findingContacts,
        showFriction: checkedOf(this.controls.frictionBox),
        showNormals: checkedOf(this.controls.normalsBox),
        onB: (c) => this.onB(c),
      });
      this.updateGhost(v);
      const t1 = performance.now();
      this.trail.update(v.index, [...this.selectedBodies][0], checkedOf(this.controls.trailBox), this.colors.trail);
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
    const w = this.whatIf && this.whatIf.index === v.index && checkedOf(this.controls.ghostBox) ? this.whatIf : undefined;
    const { ghosts, metresPerMps } = whatIfGhosts(w, v, (c) => this.onB(c), LONGEST_ARROW_UNITS * this.unit);
    this.metresPerMps = metresPerMps;
    this.contacts.updateGhost(this.metresPerMps > 0 ? ghosts : [], this.metresPerMps, this.unit, this.colors.ghostRecorded, this.colors.ghostAlternative);
  }

  private showLegend(mode: ColorMode, contacts: readonly ContactView[]): void {
    const text = legendText({
      mode,
      contacts,
      hasImpulse: this.view?.contacts.some((c) => c.lambdaN > 0) ?? false,
      metresPerNs: this.metresPerNs,
      unit: this.unit,
      ghostBodies: this.ghostBodies.visible,
      metresPerMps: this.metresPerMps,
      whatIfSolver: this.whatIf?.options.solver,
    });
    this.legend.replaceChildren(...legendNodes(text, mode === 'state' ? this.colors : null));
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
