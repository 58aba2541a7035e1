/**
 * A z-up orbit camera: a target point, a distance and two angles (azimuth about +z, elevation above the
 * xy-plane). Mouse: left drag orbits, right / middle / shift-drag pans, wheel zooms. Keyboard (canvas
 * focused): arrows orbit, shift+arrows pan, + / − zoom. The state is plain numbers so the webview can save it.
 */
import { PerspectiveCamera, Vector3 } from 'three';

export interface OrbitState {
  readonly target: readonly [number, number, number];
  readonly distance: number;
  readonly azimuth: number;
  readonly elevation: number;
}

/** Elevation stays inside ±(π/2 − this) so the view direction never lines up with +z (up). */
const POLE_MARGIN = 0.01;
const ORBIT_PER_PIXEL = 0.008;
const KEY_ORBIT = 0.1;
const ZOOM_PER_WHEEL = 0.0015;
const KEY_ZOOM = 1.2;
/** frameBox leaves this much room around the box (distance factor). */
const FRAME_MARGIN = 1.08;

export class OrbitCamera {
  readonly camera = new PerspectiveCamera(40, 1, 0.01, 1000);
  private target = new Vector3();
  private distance = 5;
  private azimuth = -Math.PI / 3;
  private elevation = 0.45;

  constructor(
    private readonly el: HTMLElement,
    private readonly changed: (userMoved: boolean) => void,
  ) {
    this.camera.up.set(0, 0, 1);
    this.apply();
    let drag: { x: number; y: number; pan: boolean } | undefined;
    el.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.button !== 0 || e.shiftKey };
      el.setPointerCapture(e.pointerId);
    });
    el.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x,
        dy = e.clientY - drag.y;
      drag.x = e.clientX;
      drag.y = e.clientY;
      if (drag.pan) this.pan(dx, dy);
      else this.orbit(-dx * ORBIT_PER_PIXEL, dy * ORBIT_PER_PIXEL);
    });
    const end = (): void => {
      drag = undefined;
    };
    el.addEventListener('pointerup', end);
    el.addEventListener('pointercancel', end);
    el.addEventListener('contextmenu', (e) => e.preventDefault());
    el.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        this.zoom(Math.exp(e.deltaY * ZOOM_PER_WHEEL));
      },
      { passive: false },
    );
    el.addEventListener('keydown', (e) => {
      const k = e.key;
      let used = true;
      if (k === 'ArrowLeft' || k === 'ArrowRight' || k === 'ArrowUp' || k === 'ArrowDown') {
        const sx = k === 'ArrowLeft' ? -1 : k === 'ArrowRight' ? 1 : 0,
          sy = k === 'ArrowUp' ? -1 : k === 'ArrowDown' ? 1 : 0;
        if (e.shiftKey) this.pan(-sx * 20, -sy * 20);
        else this.orbit(sx * KEY_ORBIT, -sy * KEY_ORBIT);
      } else if (k === '+' || k === '=') this.zoom(1 / KEY_ZOOM);
      else if (k === '-' || k === '_') this.zoom(KEY_ZOOM);
      else used = false;
      // the inspector's own arrow-key stepping must not see keys the camera used
      if (used) {
        e.preventDefault();
        e.stopPropagation();
      }
    });
  }

  get state(): OrbitState {
    const t = this.target;
    return { target: [t.x, t.y, t.z], distance: this.distance, azimuth: this.azimuth, elevation: this.elevation };
  }

  set state(s: OrbitState) {
    if (![...s.target, s.distance, s.azimuth, s.elevation].every(Number.isFinite) || !(s.distance > 0)) return;
    this.target.set(s.target[0], s.target[1], s.target[2]);
    this.distance = s.distance;
    this.azimuth = s.azimuth;
    this.elevation = s.elevation;
    this.apply();
  }

  setAspect(aspect: number): void {
    this.camera.aspect = aspect;
    this.camera.updateProjectionMatrix();
  }

  /** Looks at the sphere (centre, radius) so that it fills the view, keeping the viewing direction. */
  frame(centre: Vector3, radius: number): void {
    const r = Math.max(radius, 1e-3);
    const fov = (this.camera.fov * Math.PI) / 180;
    const half = Math.min(fov, 2 * Math.atan(Math.tan(fov / 2) * this.camera.aspect)) / 2;
    this.target.copy(centre);
    this.distance = (1.15 * r) / Math.sin(half);
    this.apply();
    this.changed(true);
  }

  /**
   * Looks at an axis-aligned box (its 8 corners) so that it fills the view with a small margin, keeping the
   * viewing direction: tighter than the bounding sphere for tall or flat scenes (a 10-box stack fills the
   * height). For each corner p (relative to the centre) in camera axes (x right, y up, z towards the camera),
   * the distance d must satisfy |x| ≤ tan(hfov/2)·(d − z) and |y| ≤ tan(vfov/2)·(d − z).
   */
  frameBox(min: Vector3, max: Vector3): void {
    const centre = min.clone().add(max).multiplyScalar(0.5);
    this.target.copy(centre);
    this.apply();
    const tanV = Math.tan((this.camera.fov * Math.PI) / 360),
      tanH = tanV * this.camera.aspect;
    const right = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 0),
      up = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 1),
      back = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 2);
    let d = 1e-3;
    const p = new Vector3();
    for (let k = 0; k < 8; k++) {
      p.set(k & 1 ? max.x : min.x, k & 2 ? max.y : min.y, k & 4 ? max.z : min.z).sub(centre);
      const x = p.dot(right),
        y = p.dot(up),
        z = p.dot(back);
      d = Math.max(d, z + Math.abs(x) / tanH, z + Math.abs(y) / tanV);
    }
    this.distance = FRAME_MARGIN * d;
    this.apply();
    this.changed(true);
  }

  private orbit(dAz: number, dEl: number): void {
    this.azimuth += dAz;
    const lim = Math.PI / 2 - POLE_MARGIN;
    this.elevation = Math.min(lim, Math.max(-lim, this.elevation + dEl));
    this.apply();
    this.changed(true);
  }

  /** Moves the target in the view plane by (dx, dy) screen pixels. */
  private pan(dx: number, dy: number): void {
    const h = this.el.clientHeight || 1;
    const perPixel = (2 * this.distance * Math.tan((this.camera.fov * Math.PI) / 360)) / h;
    const right = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 0);
    const up = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 1);
    this.target.addScaledVector(right, -dx * perPixel).addScaledVector(up, dy * perPixel);
    this.apply();
    this.changed(true);
  }

  private zoom(factor: number): void {
    this.distance = Math.min(1e4, Math.max(1e-3, this.distance * factor));
    this.apply();
    this.changed(true);
  }

  private apply(): void {
    const c = Math.cos(this.elevation);
    const d = new Vector3(c * Math.cos(this.azimuth), c * Math.sin(this.azimuth), Math.sin(this.elevation));
    this.camera.position.copy(this.target).addScaledVector(d, this.distance);
    this.camera.near = Math.max(1e-3, this.distance / 1000);
    this.camera.far = this.distance * 100;
    this.camera.lookAt(this.target);
    this.camera.updateProjectionMatrix();
    this.camera.updateMatrixWorld();
  }
}
