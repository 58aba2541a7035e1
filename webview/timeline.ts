/**
 * Timeline controls: slider (value = session index), play/pause at settings.playbackFps (stops at the
 * last frame), step ±1, previous/next finding, and the document keyboard shortcuts
 * (←/→ step, Space play/pause, Home/End; D: the first divergence in compare mode) — ignored while focus is in an
 * input, select or text field. In compare mode a mark on the slider shows where the two runs part.
 */
import { byId } from './dom.js';
import { button, setLabel } from './toolkit.js';

/** Elements where keys belong to the control (typing, native range/select keys). */
const EDITABLE = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'VSCODE-TEXT-FIELD', 'VSCODE-DROPDOWN', 'VSCODE-TEXT-AREA']);
/** Elements where Space is the control's own activation key. */
const ACTIVATABLE = new Set(['BUTTON', 'VSCODE-BUTTON', 'VSCODE-CHECKBOX', 'VSCODE-OPTION', 'A']);

export class Timeline {
  private readonly slider = byId<HTMLInputElement>('timeline-slider');
  private readonly playButton: HTMLElement;
  private frameCount = 0;
  private findingIndices: number[] = [];
  private fps = 30;
  private timer: number | undefined;
  /** Compare mode: the session index of the first divergence (null: none, or not comparing). */
  private divergence: number | null = null;
  private readonly divergenceButton: HTMLElement;
  private readonly divergenceMark: HTMLElement;
  index = 0;

  /** `seek` is called with every new session index the user (or playback) asks for. */
  constructor(private readonly seek: (index: number) => void) {
    const bar = byId('timeline-buttons');
    bar.append(
      button({ id: 'btn-prev-finding', label: '‹ finding', title: 'Previous finding', onClick: () => this.finding(-1) }),
      button({ id: 'btn-back', label: '|◀', title: 'Step back (←)', onClick: () => this.step(-1) }),
      (this.playButton = button({ id: 'btn-play', label: '▶ Play', title: 'Play / pause (Space)', appearance: 'primary', onClick: () => this.togglePlay() })),
      button({ id: 'btn-forward', label: '▶|', title: 'Step forward (→)', onClick: () => this.step(1) }),
      button({ id: 'btn-next-finding', label: 'finding ›', title: 'Next finding', onClick: () => this.finding(1) }),
      (this.divergenceButton = button({
        id: 'btn-divergence',
        label: '⇥ divergence',
        title: 'Go to the first frame where the two runs part (D)',
        onClick: () => this.gotoDivergence(),
      })),
    );
    this.divergenceButton.hidden = true;
    this.divergenceMark = byId('timeline-divergence');
    this.slider.addEventListener('input', () => this.goto(Number(this.slider.value)));
    document.addEventListener('keydown', (e) => this.key(e));
  }

  configure(frameCount: number, findingIndices: readonly number[], fps: number, index: number): void {
    this.stop();
    this.frameCount = frameCount;
    this.findingIndices = [...new Set(findingIndices)].sort((a, b) => a - b);
    this.fps = fps > 0 ? fps : 30;
    this.slider.min = '0';
    this.slider.max = String(Math.max(0, frameCount - 1));
    this.show(index);
  }

  /** Compare mode: where the runs part (a mark on the slider, a button and the D key), or null. */
  setDivergence(index: number | null): void {
    this.divergence = index;
    this.divergenceButton.hidden = index === null;
    this.divergenceMark.hidden = index === null;
    if (index !== null) this.divergenceMark.style.left = `${(100 * index) / Math.max(1, this.frameCount - 1)}%`;
  }

  gotoDivergence(): void {
    if (this.divergence !== null) this.goto(this.divergence);
  }

  /** A session that grows (live): more frames and findings; playback and the current frame go on. */
  grow(frameCount: number, findingIndices: readonly number[]): void {
    this.frameCount = frameCount;
    this.findingIndices = [...new Set(findingIndices)].sort((a, b) => a - b);
    this.slider.max = String(Math.max(0, frameCount - 1));
    this.slider.value = String(this.index);
  }

  /** Moves the slider without asking for a frame (the caller already did). */
  show(index: number): void {
    this.index = index;
    this.slider.value = String(index);
  }

  goto(index: number): void {
    if (this.frameCount === 0) return;
    const i = Math.min(this.frameCount - 1, Math.max(0, Math.round(index)));
    if (i === this.index && Number(this.slider.value) === i) return;
    this.show(i);
    this.seek(i);
  }

  step(delta: number): void {
    this.goto(this.index + delta);
  }

  /** Jumps to the next (+1) or previous (−1) finding's frame. */
  finding(direction: 1 | -1): void {
    const f = direction > 0 ? this.findingIndices.find((i) => i > this.index) : [...this.findingIndices].reverse().find((i) => i < this.index);
    if (f !== undefined) this.goto(f);
  }

  get playing(): boolean {
    return this.timer !== undefined;
  }

  togglePlay(): void {
    if (this.playing) this.stop();
    else this.play();
  }

  play(): void {
    if (this.playing || this.frameCount === 0) return;
    if (this.index >= this.frameCount - 1) this.goto(0);
    this.timer = window.setInterval(() => {
      if (this.index >= this.frameCount - 1) {
        this.stop();
        return;
      }
      this.step(1);
      if (this.index >= this.frameCount - 1) this.stop();
    }, 1000 / this.fps);
    setLabel(this.playButton, '❚❚ Pause');
  }

  stop(): void {
    if (this.timer !== undefined) window.clearInterval(this.timer);
    this.timer = undefined;
    setLabel(this.playButton, '▶ Play');
  }

  private key(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return; // Alt+←/→ etc. are VS Code keybindings (sent as commands)
    const t = e.target instanceof HTMLElement ? e.target : null;
    if (t && (EDITABLE.has(t.tagName) || t.isContentEditable)) return;
    switch (e.key) {
      case 'ArrowLeft':
        this.step(-1);
        break;
      case 'ArrowRight':
        this.step(1);
        break;
      case 'Home':
        this.goto(0);
        break;
      case 'End':
        this.goto(this.frameCount - 1);
        break;
      case 'd':
      case 'D':
        if (this.divergence === null) return;
        this.gotoDivergence();
        break;
      case ' ':
        if (t && ACTIVATABLE.has(t.tagName)) return;
        this.togglePlay();
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}
