/**
 * The contacts of the current frame, drawn with instancing (a handful of draw calls for any number of
 * contacts: the 1000-box pile has ≈ 3800): a point per contact, its normal as a line, its λn as an arrow
 * along n and its friction impulse λt1·t1 + λt2·t2 as a second arrow, both scaled by one factor in m per
 * N·s. λ pushes body a along +n and b along −n (docs/physics.md "Conventions"): the arrows show the impulse on a,
 * or on b when only b can move. Glyphs are drawn over the bodies, like a debugger's overlay. Contacts named by a finding or selected get a
 * larger point in the finding / selection colour.
 */
import {
  BufferAttribute,
  BufferGeometry,
  Color,
  ConeGeometry,
  CylinderGeometry,
  Group,
  InstancedMesh,
  LineBasicMaterial,
  LineSegments,
  Matrix4,
  MeshBasicMaterial,
  Quaternion,
  SphereGeometry,
  Vector3,
  type Scene,
} from 'three';
import type { ContactView } from '../../src/protocol/inspector.js';
import type { SceneColors } from './sceneColors.js';

/** Glyph sizes relative to the scene's typical body size (SceneView.unit). */
const POINT_RADIUS = 0.12;
const HIGHLIGHT_POINT = 1.9;
const ARROW_RADIUS = 0.09;
const HEAD_RADIUS = 0.2;
const HEAD_LENGTH = 0.35;
const NORMAL_LENGTH = 0.6;

export interface ContactStyle {
  readonly colors: SceneColors;
  /** Per contact: its colour (state or quantity ramp). */
  readonly colorOf: (c: ContactView) => string;
  /** Arrow length per N·s (m). */
  readonly metresPerNs: number;
  /** Typical body size (m): glyph sizes scale with it. */
  readonly unit: number;
  readonly selected: ReadonlySet<number>;
  readonly findings: ReadonlySet<number>;
  readonly showFriction: boolean;
  readonly showNormals: boolean;
  /**
   * True when the arrows show the impulse on body b (−λn·n, −λt): b moves and a is static. Otherwise they
   * show the impulse on a (+λn·n, +λt), so an arrow always pushes a body that can move.
   */
  readonly onB: (c: ContactView) => boolean;
}

const UP = new Vector3(0, 1, 0);
/**
 * Glyphs are drawn over the bodies (no depth test), so contacts inside a pile or under a ball stay visible;
 * "transparent" (at full opacity) puts them in three.js's last pass, after the see-through ground patch.
 */
const XRAY = { depthTest: false, depthWrite: false, transparent: true } as const;
const GLYPH_ORDER = 10;

/** A growable instanced mesh. */
class Glyphs {
  mesh: InstancedMesh;
  private ord = GLYPH_ORDER;
  set order(o: number) {
    this.ord = o;
    this.mesh.renderOrder = o;
  }
  constructor(
    private readonly group: Group,
    private readonly geometry: SphereGeometry | CylinderGeometry | ConeGeometry,
    capacity: number,
  ) {
    this.mesh = this.make(capacity);
  }
  private make(capacity: number): InstancedMesh {
    const m = new InstancedMesh(this.geometry, new MeshBasicMaterial(XRAY), capacity);
    m.frustumCulled = false;
    m.renderOrder = this.ord;
    m.count = 0;
    // allocate the colour buffer now (setColorAt would create it lazily)
    m.setColorAt(0, new Color());
    this.group.add(m);
    return m;
  }
  ensure(n: number): void {
    if (n <= this.mesh.instanceMatrix.count) return;
    this.group.remove(this.mesh);
    this.mesh.dispose();
    this.mesh = this.make(Math.max(n, 2 * this.mesh.instanceMatrix.count));
  }
  done(n: number): void {
    this.mesh.count = n;
    this.mesh.instanceMatrix.needsUpdate = true;
    if (this.mesh.instanceColor) this.mesh.instanceColor.needsUpdate = true;
  }
}

/** Arrows (instanced shafts + heads), filled per frame: begin, add…, end. */
class Arrows {
  private readonly shafts: Glyphs;
  private readonly heads: Glyphs;
  private n = 0;
  private unit = 1;
  private readonly m = new Matrix4();
  private readonly q = new Quaternion();
  private readonly p = new Vector3();
  private readonly s = new Vector3();
  constructor(group: Group, capacity: number) {
    // unit shaft and head along +y from y = 0 to y = 1
    this.shafts = new Glyphs(group, new CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0), capacity);
    this.heads = new Glyphs(group, new ConeGeometry(1, 1, 12).translate(0, 0.5, 0), capacity);
  }
  begin(max: number, unit: number): void {
    this.shafts.ensure(max);
    this.heads.ensure(max);
    this.n = 0;
    this.unit = unit;
  }
  /** An arrow from `base` along the unit vector `dir`, `length` m long. */
  add(base: Vector3, dir: Vector3, length: number, color: Color): void {
    if (!(length > 0) || !Number.isFinite(length)) return;
    const u = this.unit,
      headLen = Math.min(HEAD_LENGTH * u, 0.5 * length);
    this.q.setFromUnitVectors(UP, dir);
    this.m.compose(base, this.q, this.s.set(ARROW_RADIUS * u, length - headLen, ARROW_RADIUS * u));
    this.shafts.mesh.setMatrixAt(this.n, this.m);
    this.shafts.mesh.setColorAt(this.n, color);
    this.p.copy(base).addScaledVector(dir, length - headLen);
    this.m.compose(this.p, this.q, this.s.set(HEAD_RADIUS * u, headLen, HEAD_RADIUS * u));
    this.heads.mesh.setMatrixAt(this.n, this.m);
    this.heads.mesh.setColorAt(this.n, color);
    this.n++;
  }
  end(): void {
    this.shafts.done(this.n);
    this.heads.done(this.n);
  }
}

/** One contact of a what-if result for the ghost: its point and the post-step velocities (m/s, world). */
export interface GhostContact {
  readonly point: readonly [number, number, number];
  readonly recorded: readonly [number, number, number];
  readonly alternative: readonly [number, number, number];
}

export class ContactLayer {
  private readonly group = new Group();
  private readonly points: Glyphs;
  private readonly arrows: Arrows;
  private readonly ghost: Arrows;
  private normals: LineSegments;
  private normalBuf = new Float32Array(0);
  private contacts: readonly ContactView[] = [];
  private readonly m = new Matrix4();
  private readonly q = new Quaternion();
  private readonly d = new Vector3();
  private readonly s = new Vector3();
  /** Parsed colours by CSS text (parsing a colour per contact per frame would dominate the update). */
  private readonly colors = new Map<string, Color>();

  constructor(scene: Scene) {
    scene.add(this.group);
    this.points = new Glyphs(this.group, new SphereGeometry(1, 12, 8), 256);
    this.points.order = GLYPH_ORDER + 1; // points over their arrows
    this.arrows = new Arrows(this.group, 512);
    this.ghost = new Arrows(this.group, 16);
    this.normals = new LineSegments(new BufferGeometry(), new LineBasicMaterial(XRAY));
    this.normals.frustumCulled = false;
    this.normals.renderOrder = GLYPH_ORDER - 1; // the arrows (along the same normal) are drawn over the line
    this.group.add(this.normals);
  }

  /** Draws `contacts` with their friction vectors (3 per contact, world, N·s; may be empty). */
  update(contacts: readonly ContactView[], friction: Float64Array | undefined, st: ContactStyle): void {
    this.contacts = contacts;
    const C = contacts.length;
    this.points.ensure(C);
    this.arrows.begin(2 * C, st.unit);
    const arrow = (base: Vector3, dir: Vector3, length: number, color: Color): void => this.arrows.add(base, dir, length, color);
    if (this.normalBuf.length < 6 * C) this.normalBuf = new Float32Array(6 * Math.max(C, 64) * 2);
    const nb = this.normalBuf;
    const base = new Vector3(),
      fcol = this.color(st.colors.friction);
    for (let k = 0; k < C; k++) {
      const c = contacts[k];
      base.set(c.point[0], c.point[1], c.point[2]);
      const hi = st.selected.has(c.index) ? st.colors.selection : st.findings.has(c.index) ? st.colors.finding : null;
      const r = POINT_RADIUS * st.unit * (hi ? HIGHLIGHT_POINT : 1);
      this.m.compose(base, this.q.identity(), this.s.setScalar(r));
      this.points.mesh.setMatrixAt(k, this.m);
      const own = this.color(st.colorOf(c));
      this.points.mesh.setColorAt(k, hi ? this.color(hi) : own);
      const sign = st.onB(c) ? -1 : 1;
      this.d.set(sign * c.normal[0], sign * c.normal[1], sign * c.normal[2]);
      if (this.d.lengthSq() > 0) {
        this.d.normalize();
        arrow(base, this.d, c.lambdaN * st.metresPerNs, own);
        const L = NORMAL_LENGTH * st.unit;
        const o = 6 * k;
        nb[o] = base.x;
        nb[o + 1] = base.y;
        nb[o + 2] = base.z;
        nb[o + 3] = base.x + this.d.x * L;
        nb[o + 4] = base.y + this.d.y * L;
        nb[o + 5] = base.z + this.d.z * L;
      } else nb.fill(0, 6 * k, 6 * k + 6);
      if (st.showFriction && friction && friction.length >= 3 * C) {
        this.d.set(sign * friction[3 * k], sign * friction[3 * k + 1], sign * friction[3 * k + 2]);
        const len = this.d.length();
        if (len > 0) arrow(base, this.d.multiplyScalar(1 / len), len * st.metresPerNs, fcol);
      }
    }
    this.points.done(C);
    this.arrows.end();
    const g = this.normals.geometry;
    if (g.getAttribute('position')?.array !== nb) g.setAttribute('position', new BufferAttribute(nb, 3));
    (g.getAttribute('position') as BufferAttribute).needsUpdate = true;
    g.setDrawRange(0, st.showNormals ? 2 * C : 0);
    (this.normals.material as LineBasicMaterial).color.setStyle(st.colors.normal);
  }

  /**
   * The what-if ghost: each re-solved contact's velocity after the step (a relative to b, m/s) with the
   * recorded λ and with the alternative's, side by side from its point; `metresPerMps` scales them.
   */
  updateGhost(contacts: readonly GhostContact[], metresPerMps: number, unit: number, recordedCss: string, alternativeCss: string): void {
    this.ghost.begin(2 * contacts.length, unit);
    const base = new Vector3(),
      d = new Vector3(),
      side = new Vector3();
    for (const c of contacts) {
      for (const [v, css, offset] of [
        [c.recorded, recordedCss, -1],
        [c.alternative, alternativeCss, 1],
      ] as const) {
        d.set(v[0], v[1], v[2]);
        const len = d.length();
        if (!(len > 0)) continue;
        d.multiplyScalar(1 / len);
        // "beside": the two arrows start a head's width apart, across their direction
        side.set(-d.y, d.x, 0);
        if (side.lengthSq() < 1e-12) side.set(1, 0, 0);
        side.normalize().multiplyScalar(offset * HEAD_RADIUS * unit);
        base.set(c.point[0], c.point[1], c.point[2]).add(side);
        this.ghost.add(base, d, len * metresPerMps, this.color(css));
      }
    }
    this.ghost.end();
  }

  private color(css: string): Color {
    let c = this.colors.get(css);
    if (!c) {
      c = new Color(css);
      this.colors.set(css, c);
    }
    return c;
  }

  /** The contact whose point projects nearest to (x, y) within `radius` pixels; project maps world → pixels. */
  pick(
    x: number,
    y: number,
    radius: number,
    project: (p: readonly [number, number, number]) => { x: number; y: number; visible: boolean },
  ): ContactView | null {
    let best: ContactView | null = null,
      bestD = radius * radius;
    for (const c of this.contacts) {
      const s = project(c.point);
      if (!s.visible) continue;
      const d = (s.x - x) ** 2 + (s.y - y) ** 2;
      if (d <= bestD) {
        bestD = d;
        best = c;
      }
    }
    return best;
  }
}
