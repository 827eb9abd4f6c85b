// Words for findings and explanations: what a call or op is called, where it came from, which
// SEMANTICS.md rules govern a call, what a wait waited for and what released it. The report, the
// timeline's details pane and the CLI all say these things through this module.
import type { Program, Step } from '../scenario/program';
import { CK, OK, type CallKind } from '../trace/kinds';
import { OP_KINDS, RELEASED_UNKNOWN, Trace, callKind, callSite, releaseHow, str, type CallSite } from '../trace/model';
import { HbGraph, lanePrev } from './graph';
import type { CandidateOp, QueuedOp, ReleasingOp, SiteSource } from './types';
import { queuedBehind } from './queued-behind';
import { shortKernelName } from '../trace/kernel-names';
import { formatNs } from '../units';

/** Why a narrower wait's needed op is a deduction (WaitExplanation.narrower.deduced). */
export const NARROWER_DEDUCED =
  'read from its copies to host memory and the events its thread used next: the trace lists no buffers, so whether later GPU work needs the rest is not known';

/** Whether the trace holds every call of the program: imported profiler traces start mid-run. */
export const holdsEveryCall = (t: Trace): boolean => t.meta.source === 'simulator' || t.meta.source === 'gpu';

export const opName = (t: Trace, op: number): string => str(t, t.ops.name[op]) || OP_KINDS[t.ops.kind[op]];
export const laneName = (t: Trace, lane: number): string => t.lanes[lane]?.name ?? `lane ${lane}`;
export const opStream = (t: Trace, op: number): string => laneName(t, t.ops.lane[op]);
/** An op by the name the timeline's lanes give it: a kernel's short form (kernel-names.ts), any other op's own name. */
export const opShortName = (t: Trace, op: number): string =>
  t.ops.kind[op] === OK.kernel ? shortKernelName(opName(t, op)) : opName(t, op);

export function callSource(t: Trace, call: number): { line: number; column: number } | undefined {
  return call >= 0 && t.calls.line[call] > 0 ? { line: t.calls.line[call], column: t.calls.column[call] } : undefined;
}

/** " (line 12)" for a call with a scenario position, "" otherwise. */
export function atLine(t: Trace, call: number): string {
  const s = callSource(t, call);
  return s ? ` (line ${s.line})` : '';
}

/** "in loop() (train.py:8)" for a function site, "train.py:42 in loop()" for a line: what the UI and the CLI print. */
export function siteLabel(site: CallSite): string {
  const f = site.frame;
  const fn = f.function === '<module>' ? '<module>' : `${f.function}()`;
  const where = f.line > 0 ? `${f.file}:${f.line}` : f.file;
  // A scenario's step line has no function: the place alone.
  if (!f.function) return where;
  return site.precision === 'line' ? `${where} in ${fn}` : `in ${fn} (${where})`;
}

/**
 * Where a call was made, in words: its source site (`train.py:42`, `train.py: in step()` when only
 * the function is known), its scenario line, else its framework op, else its API name on its lane.
 */
export function callSiteText(t: Trace, call: number): string {
  const site = callSite(t, call);
  if (site) return siteLabel(site);
  if (t.calls.line[call] > 0) return `line ${t.calls.line[call]}`;
  // A framework context can be a whole Python stack: its innermost frames say where.
  if (t.calls.context[call]) return str(t, t.calls.context[call]).split(' > ').slice(-3).join(' > ');
  return `${str(t, t.calls.name[call]) || callKind(t, call)} on ${laneName(t, t.calls.lane[call])}`;
}

/** `"produce" on stream side (line 12)` */
export function opLabel(t: Trace, op: number): string {
  return `"${opName(t, op)}" on stream ${opStream(t, op)}${atLine(t, t.ops.call[op])}`;
}

/** A copy or memset call that asked for the asynchronous API (cudaMemcpyAsync, cudaMemsetAsync). */
export function isAsyncCall(t: Trace, call: number, program?: Program): boolean {
  const step = programStep(t, call, program);
  if (step && (step.op === 'copy' || step.op === 'memset')) return step.async;
  return /async/i.test(str(t, t.calls.name[call]));
}

/** The compiled step that made a call, when the trace came from this program. */
export function programStep(t: Trace, call: number, program?: Program): Step | undefined {
  const index = t.calls.step[call];
  if (!program || index < 0) return undefined;
  const thread = program.threads.find((th) => th.name === laneName(t, t.calls.lane[call])) ?? program.threads[0];
  return thread?.steps[index];
}

/** The op itself, or for an event record or stream wait marker, the real work before it in its stream. */
export function workAt(t: Trace, g: HbGraph, op: number): number {
  const marker = (j: number) => t.ops.kind[j] === OK.eventRecord || t.ops.kind[j] === OK.waitEvent;
  let j = op;
  while (marker(j)) {
    const prev = lanePrev(g, g.calls + j);
    if (prev < 0) return op;
    j = prev - g.calls;
  }
  return j;
}

/**
 * The SEMANTICS.md rules of each call kind: what the call does (S6 to S14, S20), and for copies and
 * memsets why they make the host wait (S17, S18). S15 (spin or sleep) and S21 (which device) say how
 * every wait of a device waits, not what one call waits for, so no call names them.
 */
const KIND_RULES: Partial<Record<CallKind, readonly string[]>> = {
  record: ['S6', 'S7'],
  streamWait: ['S8'],
  query: ['S10'],
  elapsed: ['S11'],
  eventSync: ['S12'],
  streamSync: ['S13'],
  deviceSync: ['S14'],
  memset: ['S18'],
  hostFunc: ['S20'],
};

/** Launches of kernels and host functions return at once: when one blocks, it waited for room in the launch queue (S19). */
const QUEUED = new Set<number>([CK.launch, CK.hostFunc]);

/**
 * The rules that govern a call: those of its kind, S19 when it blocked on a full launch queue, and
 * S16 when the trace names the op that released it. The report's `rules` and the details pane read
 * this one answer (the report adds S9 where the analysis finds the event never recorded).
 */
export function callRules(t: Trace, call: number, program?: Program): string[] {
  const kind = callKind(t, call);
  const rules = kind === 'memcpy' ? [isAsyncCall(t, call, program) ? 'S17' : 'S18'] : [...(KIND_RULES[kind] ?? [])];
  if (QUEUED.has(t.calls.kind[call]) && t.calls.blockedNs[call] > 0) rules.push('S19');
  if (t.calls.releasedBy[call] >= 0) rules.push('S16');
  return rules;
}

/** What a call waited for or names: its event, else its stream; for a device synchronize, the device. */
export function callTarget(t: Trace, call: number): string {
  // S21: with more than one GPU, say which one; a one-GPU trace keeps the plain word.
  if (t.calls.kind[call] === CK.deviceSync)
    return t.meta.devices && t.meta.devices.length > 1 ? `device ${t.calls.device[call]}` : 'device';
  if (t.calls.event[call]) return str(t, t.calls.event[call]);
  return t.calls.stream[call] >= 0 ? laneName(t, t.calls.stream[call]) : '';
}

/** The op that released a wait (S16): one op, none when nothing was pending, null when the data cannot tell. */
export function releasingOps(t: Trace, call: number): ReleasingOp[] | null {
  const r = t.calls.releasedBy[call];
  if (r === RELEASED_UNKNOWN) return null;
  if (r < 0) return [];
  const released: ReleasingOp = { op: r, name: opName(t, r), stream: opStream(t, r), how: releaseHow(t, call) };
  const site = launchSite(t, r);
  if (site) Object.assign(released, { source: siteSource(site), stack: site.stack });
  const queue = queuedBehind(t, r, t.calls.begin[call]);
  if (queue) {
    const behind = launchSite(t, queue.op);
    released.queuedBehind = { ...queue, name: opName(t, queue.op), ...(behind && { source: siteSource(behind) }) };
  }
  return [released];
}

function launchSite(t: Trace, op: number): CallSite | undefined {
  const launch = t.ops.call[op];
  return launch >= 0 && launch < t.calls.count ? callSite(t, launch) : undefined;
}

/** A site in the shape the report and the releasing ops give it. */
export function siteSource(site: CallSite): SiteSource {
  const { file, line, function: fn } = site.frame;
  const out: SiteSource = { file, line, function: fn, precision: site.precision };
  if (site.deduced) out.deduced = site.deduced;
  return out;
}

/** " (deduced: made by autograd's engine thread ...)" after a line a rule placed a call at; '' otherwise. */
export const deducedText = (s: SiteSource): string => (s.deduced ? ` (deduced: ${s.deduced})` : '');

export const candidateOp = (t: Trace, op: number): CandidateOp => ({
  op,
  name: opName(t, op),
  stream: opStream(t, op),
});

const opWords = (o: CandidateOp) => `op ${o.op} "${o.name}" on ${o.stream}`;

/** An op as the released-by words give it: "likely ..." when inferred by timing, "... (deduced)" when the rules left only it. */
export function releasingOpText(o: ReleasingOp): string {
  const words =
    o.how === 'timing' ? `likely ${opWords(o)}` : o.how === 'deduced' ? `${opWords(o)} (deduced)` : opWords(o);
  const launched = o.source ? `${words}, ${launchedText(o.source)}` : words;
  return o.queuedBehind ? `${launched}; it ${queuedText(o.queuedBehind, o.stream, launchedText)}` : launched;
}

/**
 * `queued behind 48 ops of stream 7 (3.2 ms of GPU time), the last "multi_tensor_apply_kernel",
 * launched at train.py:22 in step()`: what the host waited for behind the op that released it.
 */
function queuedText(q: QueuedOp, stream: string, launched: (s: SiteSource) => string): string {
  const op = `"${shortKernelName(q.name)}"`;
  const where = q.source ? `, ${launched(q.source)}` : '';
  const many = q.ops > 1 ? `${q.ops} ops of ${stream} (${formatNs(q.busyNs)} of GPU time), the last ` : '';
  return `queued behind ${many}${op}${where}`;
}

/** Where a releasing op was launched, in words: "launched at train.py:20 in step()", or "launched in step() (train.py:8)". */
export function launchedText(s: SiteSource): string {
  const label = siteLabel({ frame: s, precision: s.precision, stack: [] });
  return (s.precision === 'line' ? `launched at ${label}` : `launched ${label}`) + deducedText(s);
}

/** The ops that may have released a wait the data does not bind, in words. */
export const candidatesText = (ops: readonly CandidateOp[]): string => `candidates: ${ops.map(opWords).join(', ')}`;

/** Who released a wait, in words: `op 3 "produce" on side`, that nothing was pending, or that the data cannot tell. */
export function releasedByText(released: readonly ReleasingOp[] | null): string {
  if (released === null) return 'unknown (the trace does not say)';
  if (!released.length) return 'nothing was pending: returned at once';
  return released.map(releasingOpText).join(', ');
}

/** The same as a sentence of its own, as the report prints it under each wait. */
export function releasedByLine(released: readonly ReleasingOp[] | null): string {
  const text = releasedByText(released);
  return released === null ? `released by: ${text}` : released.length ? `released by ${text}` : text;
}

/**
 * Who released a group of waits (the repeats of one line of code): each releasing op by the name the
 * lanes give it and its stream, since op ids differ between repeats; "likely" where the answer was
 * inferred from timing.
 * A group where no wait names an op says so in releasedByText's words.
 */
export function groupReleasedByText(t: Trace, calls: readonly number[]): string {
  const named = new Set<string>();
  let unknown = 0;
  for (const c of calls) {
    const released = releasingOps(t, c);
    if (released === null) unknown++;
    const likely = releaseHow(t, c) === 'timing' ? 'likely ' : '';
    for (const o of released ?? []) named.add(`${likely}"${opShortName(t, o.op)}" on ${o.stream}`);
  }
  if (!named.size) return releasedByLine(unknown ? null : []);
  const rest = unknown ? `; ${unknown} of ${calls.length} unknown` : '';
  return `released by ${[...named].join(', ')}${rest}`;
}

/** The text of a line of the user's program, where the caller can read it. */
export type SourceText = (file: string, line: number) => string | undefined;

/** A line of code as a sentence quotes it: trimmed, and cut at 60 characters. */
function quoted(code: SourceText | undefined, s: SiteSource): string {
  const text = code?.(s.file, s.line)?.trim();
  if (!text) return '';
  return ` (${text.length > 60 ? text.slice(0, 59) + '…' : text})`;
}

/**
 * A wait at a user's line, in one sentence: `line 24 (scaler.step(opt)) waited 290 µs for
 * "multi_tensor_apply_kernel" launched at line 21 (opt.step())`. A launch line in another file
 * names its file. Undefined where the wait has no line of its own (a function only, or none).
 */
export function waitSentence(
  w: { blockedNs: number; releasedBy: readonly ReleasingOp[] | null; source?: unknown },
  code?: SourceText,
): string | undefined {
  const at = w.source as SiteSource | undefined;
  if (!at || typeof at !== 'object' || !('file' in at) || at.precision !== 'line') return undefined;
  const head = `line ${at.line}${quoted(code, at)}`;
  if (w.releasedBy === null) return `${head} waited ${formatNs(w.blockedNs)}; the trace does not say for which op`;
  const [by] = w.releasedBy;
  if (!by) return `${head} returned at once: nothing was pending`;
  const op = `"${shortKernelName(by.name)}"`;
  const likely = by.how === 'timing' ? 'likely ' : '';
  const launchedAt = (s: SiteSource) =>
    s.precision === 'line'
      ? `launched at ${s.file === at.file ? 'line ' : s.file + ':'}${s.line}${quoted(code, s)}${deducedText(s)}`
      : launchedText(s);
  const launched = by.source ? launchedAt(by.source) : `on ${by.stream}`;
  const queue = by.queuedBehind ? `, ${queuedText(by.queuedBehind, by.stream, launchedAt)}` : '';
  return `${head} waited ${formatNs(w.blockedNs)} for ${likely}${op} ${launched}${queue}`;
}
