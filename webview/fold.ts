// Python stack rows folded to the user's frames. A profiled Python program's host thread has one
// track per nesting depth, and most depths hold the launcher's, the interpreter's and the
// libraries' frames, so its first screen showed stack and no GPU stream. Folded, a thread keeps
// the frames of the user's code (core's user-frame rule, isUserFile), the framework ops and the
// runtime calls, each one track below the shown calls that enclose it; the frames it hides share
// one track of no height. A thread with no frame to hide is not folded.
import { isUserFile, parseFrame } from '../core/import/python-sites';
import { CK } from '../core/trace/kinds';
import { Trace, str } from '../core/trace/model';

/** A Python built-in call as Kineto names it: no file, never the user's. */
const BUILT_IN = /^<built-in (method|function) /;

/** Where each call goes within its lane's tracks, folded or not. */
export interface Folding {
  /** Per call: its track within its lane. */
  slot: Uint8Array;
  /** Per lane: how many call tracks it has (the hidden one included). */
  tracks: Int32Array;
  /** Per lane: the track of its hidden frames, or -1 where it is not folded. */
  hiddenSlot: Int32Array;
  /** Per lane: 1 where it has frames to fold away, folded now or not. */
  foldable: Uint8Array;
  /** Per lane: how many tracks folding saves. */
  saved: Int32Array;
}

/** Whether a context call's name is a Python frame of code that is not the user's. */
function libraryFrames(t: Trace): (name: number) => boolean {
  const known = new Map<number, boolean>();
  return (name) => {
    let hidden = known.get(name);
    if (hidden === undefined) {
      const text = str(t, name);
      const frame = parseFrame(text);
      hidden = frame ? !isUserFile(frame.file) : BUILT_IN.test(text);
      known.set(name, hidden);
    }
    return hidden;
  };
}

/** Call ids in begin order, an enclosing call before what it encloses; the ids as they are when already so. */
function beginOrder(t: Trace): ArrayLike<number> {
  const c = t.calls;
  const ids = new Int32Array(c.count);
  let sorted = true;
  for (let i = 0; i < c.count; i++) {
    ids[i] = i;
    if (i && (c.begin[i] < c.begin[i - 1] || (c.begin[i] === c.begin[i - 1] && c.end[i] > c.end[i - 1])))
      sorted = false;
  }
  if (!sorted) ids.sort((a, b) => c.begin[a] - c.begin[b] || c.end[b] - c.end[a] || a - b);
  return ids;
}

/**
 * The tracks of every lane's calls. A lane with a library frame is folded unless it is in
 * `unfolded`; the others keep one track per nesting depth.
 */
export function foldPythonStacks(t: Trace, unfolded: ReadonlySet<number>): Folding {
  const c = t.calls;
  const L = t.lanes.length;
  const maxDepth = new Int32Array(L).fill(-1);
  const foldable = new Uint8Array(L);
  const isLibrary = libraryFrames(t);
  const hidden = new Uint8Array(c.count);
  for (let i = 0; i < c.count; i++) {
    const l = c.lane[i];
    if (c.depth[i] > maxDepth[l]) maxDepth[l] = c.depth[i];
    if (c.kind[i] === CK.context && isLibrary(c.name[i])) hidden[i] = foldable[l] = 1;
  }
  const tracks = new Int32Array(L);
  const hiddenSlot = new Int32Array(L).fill(-1);
  const saved = new Int32Array(L);
  for (let l = 0; l < L; l++) tracks[l] = maxDepth[l] + 1;
  if (!foldable.some((f) => f === 1)) return { slot: c.depth, tracks, hiddenSlot, foldable, saved };

  // Each foldable lane's open calls, as a stack of ends; a call's folded depth is the number of
  // shown calls open around it. Runtime calls enclose nothing, so they are never pushed.
  const slot = new Uint8Array(c.count);
  const open: { end: number[]; shown: number[] }[] = [];
  const foldedMax = new Int32Array(L).fill(-1);
  const order = beginOrder(t);
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const l = c.lane[i];
    if (!foldable[l] || unfolded.has(l)) {
      slot[i] = c.depth[i];
      if (!foldable[l]) continue;
    }
    const s = (open[l] ??= { end: [], shown: [] });
    while (s.end.length && s.end[s.end.length - 1] <= c.begin[i]) {
      s.end.pop();
      s.shown.pop();
    }
    const depth = s.shown.length ? s.shown[s.shown.length - 1] : 0;
    if (!hidden[i]) {
      const d = Math.min(depth, 254);
      if (!unfolded.has(l)) slot[i] = d;
      if (d > foldedMax[l]) foldedMax[l] = d;
    }
    if (c.kind[i] === CK.context) {
      s.end.push(c.end[i]);
      s.shown.push(depth + (hidden[i] ? 0 : 1));
    }
  }
  for (let l = 0; l < L; l++) {
    if (!foldable[l]) continue;
    saved[l] = maxDepth[l] + 1 - (foldedMax[l] + 1);
    if (unfolded.has(l)) continue;
    hiddenSlot[l] = foldedMax[l] + 1;
    tracks[l] = foldedMax[l] + 2;
  }
  for (let i = 0; i < c.count; i++) if (hidden[i] && hiddenSlot[c.lane[i]] >= 0) slot[i] = hiddenSlot[c.lane[i]];
  return { slot, tracks, hiddenSlot, foldable, saved };
}
