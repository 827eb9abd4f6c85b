// How the page shares its width: lane labels, the canvas, and the drawer (details, waits, findings,
// legend). Wide panels keep the drawer as a column on the right; narrower ones put it below the
// timeline, as Perfetto does, so that the canvas keeps most of the width at every panel size.

/** The user's layout choices, kept per panel through getState/setState. */
export interface LayoutPrefs {
  /** Width of the side drawer, px. */
  sideWidth?: number;
  /** Height of the bottom drawer, px. */
  drawerHeight?: number;
  /** False when the drawer is folded away. */
  drawerOpen?: boolean;
  labelsCollapsed?: boolean;
  /** Unset until the page has been opened once: the legend is open the first time only. */
  legendOpen?: boolean;
}

export interface LayoutPlan {
  mode: 'side' | 'bottom';
  sideWidth: number;
  drawerHeight: number;
  labelWidth: number;
}

/** Below this panel width the drawer goes below the timeline. */
export const SIDE_MIN_PANEL = 1600;
/** The side drawer never takes more than this share of the panel. */
const SIDE_MAX_SHARE = 0.28;
const SIDE_MIN = 220;
/** The side drawer's width until it is dragged, as a share of the panel: room for the waits table. */
const SIDE_DEFAULT_SHARE = 0.27;
/** Lane labels and the side drawer together stay within this share, leaving the canvas over 60%. */
const LABELS_AND_SIDE_SHARE = 0.38;
/** Room for the row scrollbar and borders. */
const CHROME = 14;
export const LABEL_MIN = 80;
const LABEL_MAX = 230;
export const LABEL_COLLAPSED = 22;
const DRAWER_MIN = 90;
/** The timeline keeps at least this much height above a bottom drawer. */
const TIMELINE_MIN_H = 140;

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));

export function planLayout(width: number, height: number, prefs: LayoutPrefs): LayoutPlan {
  const mode = width >= SIDE_MIN_PANEL ? 'side' : 'bottom';
  const sideWidth = Math.round(clamp(prefs.sideWidth ?? width * SIDE_DEFAULT_SHARE, SIDE_MIN, width * SIDE_MAX_SHARE));
  const drawerHeight = Math.round(
    clamp(prefs.drawerHeight ?? height * 0.38, DRAWER_MIN, Math.max(DRAWER_MIN, height - TIMELINE_MIN_H)),
  );
  const budget = width * LABELS_AND_SIDE_SHARE - (mode === 'side' ? sideWidth : 0) - CHROME;
  const labelWidth = prefs.labelsCollapsed ? LABEL_COLLAPSED : Math.round(clamp(budget, LABEL_MIN, LABEL_MAX));
  return { mode, sideWidth, drawerHeight, labelWidth };
}

/**
 * Makes `handle` resize the drawer by dragging: `size(start, delta)` gives the new size from the
 * size when the drag began and the pointer's travel; `done` runs once the drag ends.
 */
export function dragToResize(
  handle: HTMLElement,
  current: () => number,
  size: (start: number, dx: number, dy: number) => void,
  done: () => void,
): void {
  handle.addEventListener('pointerdown', (e) => {
    if (e.button) return;
    e.preventDefault();
    const start = current();
    const [x0, y0] = [e.clientX, e.clientY];
    handle.setPointerCapture(e.pointerId);
    handle.classList.add('dragging');
    const move = (m: PointerEvent) => size(start, m.clientX - x0, m.clientY - y0);
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      handle.classList.remove('dragging');
      done();
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  });
}
