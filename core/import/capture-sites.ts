// Where in the user's Python program each captured call was made. The capture library records the
// calling thread's Python stack at every call it captures (native/capture/src/python_stack.cc), so
// a call's site is its stack's innermost user frame, at the call's own line; the whole stack stays
// with the site. The user-frame rule is the one the profiler import uses (python-sites.ts).
import type { CallSite, SourceFrame, TraceBuilder } from '../trace/model';
import { isBackwardFrame, placeInBackwardSpans, type BackwardSpan } from './backward-lines';
import type { RawCapture } from './capture-raw';
import { isTorchModule, isUserFile, MAX_STACK, SiteTable, type UserCode } from './python-sites';

/**
 * The user frames that run torch.compile's prologue: a frame that TorchDynamo's frame evaluation
 * (torch/_dynamo/eval_frame.py, which runs the code TorchDynamo made of the user's function) called, at its code's first line (the decorator or the def). Its line is where the function
 * begins, not a line that ran: the compiled graph runs from there, so the call is the caller's line,
 * as a call inside a library is. A frame at a line of the function's body (a graph break runs the
 * user's own bytecode) keeps its line.
 */
function compiledPrologues(frames: SourceFrame[], firstLines: number[]): Set<number> {
  const out = new Set<number>();
  frames.forEach((f, k) => {
    const caller = frames[k + 1];
    if (f.line > 0 && f.line === firstLines[k] && caller && isTorchModule(caller.file, '_dynamo/eval_frame.py'))
      out.add(k);
  });
  return out;
}

export class CaptureSites {
  private readonly table: SiteTable;
  /** Raw stack id -> site index, -1 where no frame is the user's; and the library calls inside its user frame. */
  private readonly byStack = new Map<number, number>();
  private readonly apiByStack = new Map<number, string | undefined>();
  private withStack = 0;
  private atUserLine = 0;

  constructor(
    private readonly raw: RawCapture,
    sites: CallSite[],
    private readonly userCode?: UserCode,
  ) {
    this.table = new SiteTable(sites, () => '', userCode);
  }

  /** The site (an index into the trace's sites) of a call made with raw stack `id`; undefined for none. */
  siteOf(id: number): number | undefined {
    if (id === 0) return undefined;
    this.withStack++;
    let site = this.byStack.get(id);
    if (site === undefined) {
      const stack = this.frames(id);
      site = this.table.add(stack.frames, 'line', stack.unplaced);
      this.byStack.set(id, site);
    }
    if (site < 0) return undefined;
    this.atUserLine++;
    return site;
  }

  /**
   * The library API the user's line called, as the call's context: the frames inside the stack's
   * innermost user frame, outermost first ("GradScaler.step > GradScaler._maybe_opt_step"); none
   * where the user's frame is innermost (a C method such as Tensor.item has no Python frame).
   */
  contextOf(id: number): string | undefined {
    if (id === 0) return undefined;
    if (!this.apiByStack.has(id)) {
      const { frames, user } = this.frames(id);
      // No user frame: the whole stack is the library's, and says where the call was made.
      const inside = user < 0 ? frames.slice().reverse() : frames.slice(0, user).reverse();
      this.apiByStack.set(id, inside.length ? inside.map((f) => f.function).join(' > ') : undefined);
    }
    return this.apiByStack.get(id);
  }

  /**
   * The stack's readable frames, innermost first: at most MAX_STACK, or up to the innermost user
   * frame that can place a call if deeper; the user frames that cannot (compiledPrologues); and the
   * index of that innermost one (-1 for none).
   */
  private frames(id: number): { frames: SourceFrame[]; unplaced: Set<number>; user: number } {
    const frames: SourceFrame[] = [];
    const firstLines: number[] = [];
    for (const f of this.raw.pyStacks.get(id)?.frames ?? []) {
      const frame = this.raw.pyFrames.get(f);
      if (!frame) continue;
      frames.push({ file: frame.file, line: frame.line, function: frame.function });
      firstLines.push(frame.firstLine);
    }
    const unplaced = compiledPrologues(frames, firstLines);
    const user = frames.findIndex((f, k) => isUserFile(f.file, this.userCode) && !unplaced.has(k));
    const keep = Math.max(MAX_STACK, user + 1);
    return { frames: frames.slice(0, keep), unplaced: new Set([...unplaced].filter((k) => k < keep)), user };
  }

  /**
   * Places the launches of threads that run no Python (autograd's engine) made while a Python
   * thread was inside backward() at that thread's line, as a deduction (backward-lines.ts). A thread
   * is inside backward() from its first call whose stack holds a backward frame to its next call
   * whose stack does not: the engine's work runs between them, while the caller waits.
   */
  deduceBackwardLines(b: TraceBuilder): number {
    const c = b.calls.cols;
    const python = new Set<number>();
    for (let i = 0; i < b.calls.count; i++) if (c.site[i] > 0 || c.context[i] > 0) python.add(c.lane[i]);
    const spans: BackwardSpan[] = [];
    const open = new Map<number, BackwardSpan>();
    for (let i = 0; i < b.calls.count; i++) {
      if (!python.has(c.lane[i])) continue;
      const site = c.site[i] - 1;
      const inside = site >= 0 && this.insideBackward(this.table.sites[site]);
      const span = open.get(c.lane[i]);
      if (span && (!inside || span.site !== site)) {
        span.end = c.begin[i];
        open.delete(c.lane[i]);
      }
      if (inside && !open.has(c.lane[i])) {
        const next = { begin: c.begin[i], end: Infinity, site };
        spans.push(next);
        open.set(c.lane[i], next);
      }
    }
    return placeInBackwardSpans(b, this.table, spans, (i) => !python.has(c.lane[i]));
  }

  private insideBackward(site: CallSite): boolean {
    const user = site.stack?.indexOf(site.frame) ?? -1;
    return user > 0 && site.stack!.slice(0, user).some(isBackwardFrame);
  }

  /** What the trace's meta says of Python, for the waits without a line; none for a program that is not Python. */
  meta(): { read: boolean; text: string } | undefined {
    const py = this.raw.python;
    return py && py.status !== 'notPython' ? { read: py.status === 'reading', text: py.text } : undefined;
  }

  /** What the trace says of Python: which interpreter, how many calls got a line, or why none did. */
  notes(calls: number): string[] {
    const py = this.raw.python;
    if (!py || py.status === 'notPython') return [];
    if (py.status !== 'reading') return [`Python stacks not read (${py.text}): calls have no source line`];
    const notes = [
      `Python stacks read from ${py.text}: ${this.withStack} of ${calls} calls were made from Python, ` +
        `${this.atUserLine} of them at a line of the user's code`,
    ];
    if (py.unreadable)
      notes.push(
        `${py.unreadable} Python frames could not be read (an interpreter laid out otherwise); they are left out`,
      );
    return notes;
  }
}
