// What core/analyze gives every consumer: the report, `check`, the timeline and the Problems panel.
import type { CallSite, Finding, ReleaseHow, SourceFrame } from '../trace/model';

/** Where in the user's program a call was made (imported traces): its innermost user frame. */
export interface SiteSource {
  file: string;
  line: number;
  function: string;
  precision: CallSite['precision'];
  /** Where a rule placed the call at this line (the data names none), why (CallSite.deduced). */
  deduced?: string;
}

export interface ReleasingOp {
  op: number;
  name: string;
  stream: string;
  /** How the op was found: named by the data (`exact`), left by the rules (`deduced`), or by timing (`timing`, "likely"). */
  how: ReleaseHow;
  /** Where the user's program launched the op: the site of the call that issued it, when the trace has one. */
  source?: SiteSource;
  /** That call's whole stack, innermost first. */
  stack?: SourceFrame[];
  /** The op it queued behind on its stream, where it did (queued-behind.ts): what the host really waited for. */
  queuedBehind?: QueuedOp;
}

/** The op a releasing op queued behind, and the stream's work while the host waited. */
export interface QueuedOp {
  op: number;
  name: string;
  /** Where the user's program launched it, when the trace has it. */
  source?: SiteSource;
  /** How many ops of the stream ended while the host waited, this one the last. */
  ops: number;
  /** Their GPU time within the wait. */
  busyNs: number;
}

/** An op that may have released a wait the data does not bind. */
export type CandidateOp = Omit<ReleasingOp, 'how' | 'source' | 'stack'>;

/** One host wait, explained. The shape of `waits[]` in `syncscope report --json`. */
export interface WaitExplanation {
  /** Call id. */
  id: number;
  kind: string;
  thread: string;
  /** The event or stream waited on ("device" for a device-wide wait). */
  target: string;
  beginNs: number;
  endNs: number;
  blockedNs: number;
  /** Empty when nothing was pending; null when the data cannot tell. */
  releasedBy: ReleasingOp[] | null;
  unblockLatencyNs: number | null;
  /** For a wait left unknown, the ops that may have released it (none is picked). */
  candidates?: CandidateOp[];
  /** Enclosing framework ops, outermost first (imported traces). */
  context?: string;
  /** Whether any awaited work was still pending when the wait began. */
  pending: boolean;
  /**
   * How much earlier a narrower wait (an event wait on `op`) would have released the host, if any.
   * `deduced`: the trace lists no buffers (an imported one), so the op the host needed was read from
   * its copies to host memory and the events its thread used next alone.
   */
  narrower?: { kind: 'eventSync'; savedNs: number; op: number; deduced?: true };
  /** SEMANTICS.md rules that govern this wait. */
  rules: string[];
  source?: { line: number; column: number };
}

export interface Metrics {
  /** Share of the run's wall time that host threads spent blocked, in percent. */
  hostBlockedPct: number;
  /** Share of the run's wall time with at least one op running on the device. */
  gpuBusyPct: number;
  /** Share of GPU-busy time with two or more streams running at once. */
  overlapPct: number;
  perStream: { stream: string; busyPct: number }[];
  /** The chain of host calls and GPU work that made the run as long as it was. */
  criticalPath: { kind: 'call' | 'op'; id: number; name: string; startNs: number; endNs: number }[];
  wallNs: number;
}

export interface HazardAccess {
  op: number;
  call: number;
  name: string;
  stream: string;
  write: boolean;
  source?: { line: number; column: number };
}

export interface Hazard {
  buffer: string;
  /** The access that started first; the fix orders it before `second`. */
  first: HazardAccess;
  second: HazardAccess;
  /** How many times this pair of places raced (inside loops). */
  count: number;
  /** The smallest fix: record an event on first.stream after first.call, wait on it in second.stream before second.call. */
  fix: { recordOn: string; after: number; waitIn: string; before: number };
  /**
   * Every pair of calls the place raced at, `fix`'s first (an inferred race, core/analyze/copy-races.ts):
   * the fix orders each, as the program's fix would in every pass of its loop.
   */
  occurrences?: { after: number; before: number }[];
}

export interface Analysis {
  waits: WaitExplanation[];
  findings: Finding[];
  metrics: Metrics;
  /** The races among the findings, with both accesses and the fix in structured form. */
  hazards: Hazard[];
}
