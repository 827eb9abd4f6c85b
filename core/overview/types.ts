// The overview of a trace (docs/overview.md): where each iteration's time goes, the lines that block
// the host longest, and the findings ranked by the host time their fix is predicted to save. It is
// made on the host side (core/overview/build.ts); the webview and the html page only draw it.
import type { CallSite, ReleaseHow, Severity, SourceFrame } from '../trace/model';

/** A line of the user's code, or the op context (`aten::to > aten::_to_copy`) where the trace has no line. */
export type OverviewWhere =
  | {
      file: string;
      line: number;
      function: string;
      precision: CallSite['precision'];
      /** The line that called the function of `line`, where that function waits on behalf of several lines (a helper). */
      calledFrom?: SourceFrame;
    }
  | { context: string };

export interface OverviewWindow {
  /** How the iterations were found: the profiler's step markers, a repeated run of calls, or not at all. */
  detectedBy: 'ProfilerStep' | 'loop' | 'none';
  /** The iterations the per-iteration figures count, in time order. */
  labels: string[];
  /** Iterations seen but left out of the figures, each with why (warm-up, a step the optimizer skipped). */
  leftOut: { label: string; why: string }[];
  beginNs: number;
  endNs: number;
  /** One sentence for people: how many steps, which, and how they were found. */
  text: string;
}

export interface OverviewIteration {
  label: string;
  beginNs: number;
  endNs: number;
  /** The host's time in the iteration; the parts add up to endNs - beginNs. */
  host: {
    /** In recorded calls and not blocked. */
    runningNs: number;
    /** Blocked in waits, by call kind, largest first. */
    blocked: { kind: string; ns: number }[];
    /** Neither: the program's own work between recorded calls. */
    otherNs: number;
  };
  /** Each stream's busy time within the iteration; idle is the rest of the span. */
  gpu: { stream: string; busyNs: number; idleNs: number }[];
}

/** Where an op was launched: a line, or only the function it ran in (`precision: 'function'`). */
export interface OverviewLaunch {
  file: string;
  line: number;
  function: string;
  precision?: CallSite['precision'];
  /** Where a rule placed the launch at this line, why (CallSite.deduced). */
  deduced?: string;
}

export interface OverviewRelease {
  name: string;
  /** The name the lanes show (core/trace/kernel-names.ts). */
  shortName: string;
  stream: string;
  how: ReleaseHow;
  /** The line that launched it, where the trace has it. */
  launch?: OverviewLaunch;
  /** The work it queued behind on its stream, where that was most of the wait (ReleasingOp.queuedBehind). */
  queuedBehind?: {
    name: string;
    shortName: string;
    /** How many ops of the stream ran while the host waited, this one the last. */
    ops: number;
    launch?: OverviewLaunch;
  };
}

export interface OverviewLine {
  where: OverviewWhere;
  blockedNs: number;
  /** blockedNs over the window's iterations, where there are iterations. */
  perIterationNs?: number;
  /** Share of the window's blocked host time, 0 to 1. */
  share: number;
  waits: number;
  /** The wait that blocked longest (a call index): the one "show in timeline" selects. */
  longest: number;
  /** The op that released the most of this line's blocked time; absent where no release is known. */
  releasedBy?: OverviewRelease;
  /** describe.ts's words for who released these waits. */
  releasedByText: string;
}

export interface OverviewFinding {
  /** Index into the trace's findings; `F${index + 1}` is its id in report, whatif and the Problems panel. */
  index: number;
  id: string;
  kind: string;
  severity: Severity;
  message: string;
  where?: OverviewWhere;
  /** Host time the fix is predicted to save over the window; negative where the fix costs time. */
  predictedSavingNs?: number;
  perIterationNs?: number;
  /** Why there is no prediction: no fix to simulate, or the what-if's reason it cannot apply. */
  noSaving?: string;
  /** A race fix adds a wait: its figure is a cost. */
  isCost: boolean;
  /** The call to show in the timeline: the finding's first call, if it has one. */
  call?: number;
}

export interface Overview {
  window: OverviewWindow;
  iterations: OverviewIteration[];
  /** Lines by blocked host time, largest first. */
  lines: OverviewLine[];
  /** Ranked by predicted saving, largest first; findings without one after them, by severity. */
  findings: OverviewFinding[];
  /** The simulator profile that predicted the savings. */
  profile: string;
  /** Where the fixes were simulated over the window's leading iterations alone: which, and why. */
  simulatedPart?: string;
}
