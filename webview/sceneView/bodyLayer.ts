/**
 * The bodies of the scene view: boxes and spheres as instanced meshes (one draw call each, however many
 * bodies: the 1000-box pile), planes as a finite grid patch around the action, and shapes Contact Lens does
 * not draw ("other") as markers with their name. Like Box2D's, Jolt's and PhysX Visual Debugger's debug
 * draws: every box has its outline (its 12 edges, one line-segment buffer for all boxes), every dynamic body
 * its own colour from a palette that separates neighbours (sceneColors.ts bodyPalette), and an X-ray mode
 * makes the bodies see-through so the contacts and arrows inside a stack show. Static bodies take the theme's
 * muted colour.
 */
import {
  Box3,
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  Color,
  DoubleSide,
  GridHelper,
  Group,
  InstancedMesh,
  LineBasicMaterial,
  LineSegments,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  MeshLambertMaterial,
  OctahedronGeometry,
  PlaneGeometry,
  Quaternion,
  type Raycaster,
  SphereGeometry,
  Vector3,
  type Scene,
} from 'three';
import { POSE_STRIDE, type SceneBody } from '../../src/protocol/scene.js';
import type { SceneColors } from './sceneColors.js';

/** Grid lines across a plane patch. */
const GRID_DIVISIONS = 20;
/** The patch spans this many times the extent of the dynamic bodies (and at least MIN_PATCH m). */
const PATCH_MARGIN = 3;
const MIN_PATCH = 2;
/** Opacity of the bodies in X-ray mode. */
const XRAY_OPACITY = 0.5;
/** A box's 12 edges as pairs of corner indices; corner k has signs (±x, ±y, ±z) from its bits (1, 2, 4). */
const BOX_EDGES = [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7];

interface Instanced {
  readonly mesh: InstancedMesh;
  readonly bodies: number[];
}

export class BodyLayer {
  private readonly group = new Group();
  private bodies: readonly SceneBody[] = [];
  private boxes: Instanced | undefined;
  private spheres: Instanced | undefined;
  private markers: Instanced | undefined;
  private readonly planes: { body: number; group: Group; fill: Mesh; grid: GridHelper }[] = [];
  private poses: Float64Array | undefined;
  private markerSize = 0.05;
  private patchPlaced = false;
  /** Outlines of the boxes: 12 segments (24 vertices) per box, rewritten per frame. */
  private readonly edges: LineSegments;
  private edgeBuf = new Float32Array(0);
  private xray = false;
  private readonly m = new Matrix4();
  private readonly q = new Quaternion();
  private readonly p = new Vector3();
  private readonly s = new Vector3();

  constructor(scene: Scene) {
    scene.add(this.group);
    this.edges = new LineSegments(new BufferGeometry(), new LineBasicMaterial({ transparent: true, opacity: 0.85 }));
    this.edges.frustumCulled = false;
    // after the opaque bodies (so their faces hide the edges behind them), before the contact glyphs
    this.edges.renderOrder = 5;
    scene.add(this.edges);
  }

  /** X-ray: bodies see-through (no depth writes), outlines all drawn; off: opaque bodies. */
  setXray(on: boolean): void {
    this.xray = on;
    for (const inst of [this.boxes, this.spheres, this.markers]) {
      if (!inst) continue;
      const m = inst.mesh.material as MeshLambertMaterial;
      m.transparent = on;
      m.opacity = on ? XRAY_OPACITY : 1;
      m.depthWrite = !on;
      m.needsUpdate = true;
    }
  }

  get count(): number {
    return this.bodies.length;
  }
  body(i: number): SceneBody | undefined {
    return this.bodies[i];
  }

  setBodies(bodies: readonly SceneBody[]): void {
    this.clear();
    this.bodies = bodies;
    const byKind = (k: string): number[] => bodies.flatMap((b, i) => (b.shape.kind === k ? [i] : []));
    const make = (geometry: BoxGeometry | SphereGeometry | OctahedronGeometry, idx: number[]): Instanced | undefined => {
      if (!idx.length) return undefined;
      const mesh = new InstancedMesh(geometry, new MeshLambertMaterial(), idx.length);
      mesh.frustumCulled = false;
      this.group.add(mesh);
      return { mesh, bodies: idx };
    };
    this.boxes = make(new BoxGeometry(2, 2, 2), byKind('box'));
    const nBoxes = this.boxes?.bodies.length ?? 0;
    this.edgeBuf = new Float32Array(72 * nBoxes);
    this.edges.geometry.dispose();
    this.edges.geometry = new BufferGeometry();
    this.edges.geometry.setAttribute('position', new BufferAttribute(this.edgeBuf, 3));
    this.edges.geometry.setDrawRange(0, 24 * nBoxes);
    this.spheres = make(new SphereGeometry(1, 24, 16), byKind('sphere'));
    this.markers = make(new OctahedronGeometry(1), byKind('other'));
    for (const i of byKind('plane')) {
      const g = new Group();
      const fill = new Mesh(new PlaneGeometry(1, 1), new MeshBasicMaterial({ transparent: true, opacity: 0.35, side: DoubleSide, depthWrite: false }));
      const grid = new GridHelper(1, GRID_DIVISIONS);
      grid.rotation.x = Math.PI / 2; // GridHelper lies in xz; the patch's local plane is xy (normal +z)
      g.add(fill, grid);
      this.group.add(g);
      this.planes.push({ body: i, group: g, fill, grid });
    }
    this.patchPlaced = false;
    this.setXray(this.xray);
  }

  /** Poses: POSE_STRIDE numbers per body (src/protocol/scene.ts); NaN hides a body. */
  update(poses: Float64Array): void {
    this.poses = poses;
    const set = (inst: Instanced | undefined, scale: (b: SceneBody) => Vector3): void => {
      if (!inst) return;
      inst.bodies.forEach((bi, k) => {
        const o = POSE_STRIDE * bi;
        if (!(o + POSE_STRIDE <= poses.length) || !Number.isFinite(poses[o])) {
          this.m.makeScale(0, 0, 0);
          inst.mesh.setMatrixAt(k, this.m);
          return;
        }
        this.p.set(poses[o], poses[o + 1], poses[o + 2]);
        this.q.set(poses[o + 4], poses[o + 5], poses[o + 6], poses[o + 3]); // three.js stores x, y, z, w
        if (!(this.q.lengthSq() > 0)) this.q.identity();
        this.q.normalize();
        this.m.compose(this.p, this.q, scale(this.bodies[bi]));
        inst.mesh.setMatrixAt(k, this.m);
      });
      inst.mesh.instanceMatrix.needsUpdate = true;
    };
    set(this.boxes, (b) => (b.shape.kind === 'box' ? this.s.set(...b.shape.halfExtents) : this.s.set(1, 1, 1)));
    set(this.spheres, (b) => {
      const r = b.shape.kind === 'sphere' ? b.shape.radius : 1;
      return this.s.set(r, r, r);
    });
    set(this.markers, () => this.s.setScalar(this.markerSize));
    this.updateEdges(poses);
    if (!this.patchPlaced) this.placePatches();
  }

  /** The boxes' 12 edges at their poses (a box without a pose collapses to a point: nothing drawn). */
  private updateEdges(poses: Float64Array): void {
    const inst = this.boxes;
    if (!inst) return;
    const buf = this.edgeBuf,
      corner = new Float64Array(24);
    inst.bodies.forEach((bi, k) => {
      const o = POSE_STRIDE * bi,
        b = this.bodies[bi].shape;
      if (b.kind !== 'box' || !(o + POSE_STRIDE <= poses.length) || !Number.isFinite(poses[o])) {
        buf.fill(0, 72 * k, 72 * k + 72);
        return;
      }
      this.q.set(poses[o + 4], poses[o + 5], poses[o + 6], poses[o + 3]);
      if (!(this.q.lengthSq() > 0)) this.q.identity();
      this.q.normalize();
      const [hx, hy, hz] = b.halfExtents;
      for (let c = 0; c < 8; c++) {
        this.p.set(c & 1 ? hx : -hx, c & 2 ? hy : -hy, c & 4 ? hz : -hz).applyQuaternion(this.q);
        corner[3 * c] = this.p.x + poses[o];
        corner[3 * c + 1] = this.p.y + poses[o + 1];
        corner[3 * c + 2] = this.p.z + poses[o + 2];
      }
      for (let e = 0; e < 24; e++) {
        const c = BOX_EDGES[e],
          at = 72 * k + 3 * e;
        buf[at] = corner[3 * c];
        buf[at + 1] = corner[3 * c + 1];
        buf[at + 2] = corner[3 * c + 2];
      }
    });
    (this.edges.geometry.getAttribute('position') as BufferAttribute).needsUpdate = true;
  }

  /** Size of the "other" markers (m): a fraction of the scene, set by the view. */
  setMarkerSize(size: number): void {
    this.markerSize = size;
  }

  /** Centre of body i in the current frame (null when it has no pose). */
  position(i: number): Vector3 | null {
    const p = this.poses,
      o = POSE_STRIDE * i;
    if (!p || o + 3 > p.length || !Number.isFinite(p[o])) return null;
    return new Vector3(p[o], p[o + 1], p[o + 2]);
  }

  /** Bounds of the drawn non-plane bodies (empty when there are none). */
  bounds(only?: ReadonlySet<number>): Box3 {
    const box = new Box3();
    for (let i = 0; i < this.bodies.length; i++) {
      const b = this.bodies[i];
      if (b.shape.kind === 'plane' || (only && !only.has(i))) continue;
      const c = this.position(i);
      if (!c) continue;
      const r = b.shape.kind === 'sphere' ? b.shape.radius : b.shape.kind === 'box' ? Math.hypot(...b.shape.halfExtents) : this.markerSize;
      box.expandByPoint(c.clone().addScalar(-r)).expandByPoint(c.clone().addScalar(r));
    }
    return box;
  }

  /** The drawn bodies' centres projected onto each plane (frame-all keeps the ground under a falling body in view). */
  groundPoints(): Vector3[] {
    const out: Vector3[] = [];
    for (const pl of this.planes) {
      const shape = this.bodies[pl.body].shape;
      if (shape.kind !== 'plane') continue;
      const n = new Vector3(...shape.normal).normalize();
      for (let i = 0; i < this.bodies.length; i++) {
        const c = this.bodies[i].shape.kind === 'plane' ? null : this.position(i);
        if (c) out.push(c.addScaledVector(n, shape.offset - n.dot(c)));
      }
    }
    return out;
  }

  /** Puts each plane's patch under the action: centred on the projection of the bodies' centre, sized to their extent. */
  private placePatches(): void {
    if (!this.planes.length) return;
    const box = this.bounds();
    const centre = box.isEmpty() ? new Vector3() : box.getCenter(new Vector3());
    const extent = box.isEmpty() ? 1 : box.getSize(new Vector3()).length();
    const size = Math.max(MIN_PATCH, PATCH_MARGIN * extent);
    for (const pl of this.planes) {
      const shape = this.bodies[pl.body].shape;
      if (shape.kind !== 'plane') continue;
      const n = new Vector3(...shape.normal).normalize();
      // the plane n·x = offset; the patch centre is the bodies' centre projected onto it
      const c = centre.clone().addScaledVector(n, shape.offset - n.dot(centre));
      pl.group.position.copy(c);
      pl.group.quaternion.setFromUnitVectors(new Vector3(0, 0, 1), n);
      pl.group.scale.setScalar(size);
    }
    this.patchPlaced = !box.isEmpty();
  }

  applyColors(c: SceneColors, selected: ReadonlySet<number>): void {
    const col = new Color();
    for (const inst of [this.boxes, this.spheres, this.markers]) {
      if (!inst) continue;
      inst.bodies.forEach((bi, k) => {
        col.setStyle(selected.has(bi) ? c.selection : this.bodies[bi].static ? c.staticBody : c.bodyColor(bi));
        inst.mesh.setColorAt(k, col);
      });
      if (inst.mesh.instanceColor) inst.mesh.instanceColor.needsUpdate = true;
    }
    (this.edges.material as LineBasicMaterial).color.setStyle(c.edge);
    for (const pl of this.planes) {
      (pl.fill.material as MeshBasicMaterial).color.setStyle(c.staticBody);
      const gm = pl.grid.material as LineBasicMaterial;
      gm.color.setStyle(c.grid);
      gm.vertexColors = false;
      gm.needsUpdate = true;
    }
  }

  /** The body under the ray (nearest hit; planes are not picked). */
  pick(ray: Raycaster): number | null {
    let best: { d: number; body: number } | null = null;
    for (const inst of [this.boxes, this.spheres, this.markers]) {
      if (!inst) continue;
      for (const h of ray.intersectObject(inst.mesh, false)) {
        if (h.instanceId !== undefined && (!best || h.distance < best.d)) best = { d: h.distance, body: inst.bodies[h.instanceId] };
      }
    }
    return best ? best.body : null;
  }

  /** Indices of the "other" bodies (labelled by the view). */
  others(): number[] {
    return this.markers ? [...this.markers.bodies] : [];
  }

  private clear(): void {
    for (const o of [...this.group.children]) {
      this.group.remove(o);
      o.traverse((x) => {
        const m = x as Mesh;
        m.geometry?.dispose();
        const mat = m.material;
        if (Array.isArray(mat)) mat.forEach((k) => k.dispose());
        else mat?.dispose();
      });
    }
    this.planes.length = 0;
    this.boxes = this.spheres = this.markers = undefined;
  }
}
