// Imported PyTorch traces against CUPTI captures of the same program: which op released each host
// wait. The two are separate runs, so waits are matched by kind and order (the k-th stream
// synchronize of one is the k-th of the other), and releasing ops by name, by rank on their
// stream (how many ops of that stream started after it before the host resumed) and by stream
// (the legacy default streams match; other streams pair up as the exact answers first show them).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import/pytorch';
import { parseTrace } from '../../core/trace/json-read';
import { CK, isWait, OK, OP_KINDS } from '../../core/trace/kinds';
import {
  COPY_KINDS,
  HOST_MEMORY,
  RELEASED_UNKNOWN,
  releaseHow,
  str,
  type ReleaseHow,
  type Trace,
} from '../../core/trace/model';
import { isSuspectRelease, releaseBound } from '../../core/trace/release-infer';
import { repoPath } from './paths';

export const PROGRAMS = [
  'side_stream_sync',
  'train_step',
  'sync_every_gemm',
  'graph_replay',
  'streams_sync',
  'pageable_copy',
];
export const SETTINGS = ['default', 'sync'] as const;
/** Waits shorter than this are not counted: a host that returns at once has nothing to name. */
export const LONG_WAIT_NS = 50_000;

const gz = (path: string) => gunzipSync(readFileSync(path)).toString('utf8');
export const importedTrace = (program: string, setting: string): Trace =>
  importPytorch(gz(repoPath('test', 'fixtures', 'torch', 'programs', `${program}.${setting}.json.gz`)));
export const truthTrace = (program: string): Trace =>
  parseTrace(gz(repoPath('test', 'fixtures', 'capture', 'programs', `${program}.plain.syncscope.json.gz`)));

const KINDS = [CK.streamSync, CK.eventSync, CK.deviceSync, CK.memcpy];

export interface WaitCheck {
  call: number;
  kind: number;
  durationNs: number;
  /** How the import answered: an op's how, `none` (nothing pending) or `unknown`. */
  answer: ReleaseHow | 'none' | 'unknown';
  ambiguous: boolean;
  /** Agreement with the capture: undefined where the capture has no such wait or its own answer is suspect. */
  agrees?: boolean;
  truthCall?: number;
}

/** Waits of the kinds compared, by kind, in order. */
function waitsByKind(t: Trace): Map<number, number[]> {
  const out = new Map<number, number[]>(KINDS.map((k) => [k, []]));
  for (let i = 0; i < t.calls.count; i++) if (isWait(t, i)) out.get(t.calls.kind[i])?.push(i);
  return out;
}

/**
 * Rank of an op on its stream: how many ops of that stream started after it and before `until`.
 * Event-record and stream-wait markers are the capture's alone (Kineto records none), so only work counts.
 */
export function rank(t: Trace, op: number, until: number): number {
  let n = 0;
  for (let j = 0; j < t.ops.count; j++)
    if (
      t.ops.lane[j] === t.ops.lane[op] &&
      t.ops.kind[j] !== OK.eventRecord &&
      t.ops.kind[j] !== OK.waitEvent &&
      t.ops.start[j] > t.ops.start[op] &&
      t.ops.start[j] < until
    )
      n++;
  return n;
}

/** What names an op in both traces: a kernel's name; a copy's direction and host memory (Kineto and the capture word copies differently). */
const opKey = (t: Trace, op: number): string =>
  t.ops.kind[op] === OK.kernel
    ? str(t, t.ops.name[op])
    : `${OP_KINDS[t.ops.kind[op]]} ${COPY_KINDS[t.ops.copy[op]]} ${HOST_MEMORY[t.ops.hostMemory[op]]}`;

export function checkAttribution(imported: Trace, truth: Trace): WaitCheck[] {
  const analysis = analyze(imported);
  const ambiguous = new Set(analysis.findings.filter((f) => f.kind === 'ambiguous-release').flatMap((f) => f.calls));
  const bound = releaseBound(truth);
  const mine = waitsByKind(imported);
  const theirs = waitsByKind(truth);
  const pairs: [number, number | undefined][] = [];
  for (const [k, list] of mine) list.forEach((i, n) => pairs.push([i, theirs.get(k)?.[n]]));
  pairs.sort((a, b) => a[0] - b[0]);
  // Streams pair up: legacy default with legacy default, then as the exact answers show them.
  const lanes = new Map<number, number>();
  const legacy = (t: Trace) => t.lanes.findIndex((l) => l.legacyDefault);
  if (legacy(imported) >= 0 && legacy(truth) >= 0) lanes.set(legacy(imported), legacy(truth));
  const ordered = [...pairs].sort(
    (a, b) => Number(releaseHow(imported, b[0]) === 'exact') - Number(releaseHow(imported, a[0]) === 'exact'),
  );
  const verdict = new Map<number, boolean | undefined>();
  for (const [i, j] of ordered) {
    const r = imported.calls.releasedBy[i];
    if (j === undefined || r === RELEASED_UNKNOWN) continue;
    const q = truth.calls.releasedBy[j];
    if (q === RELEASED_UNKNOWN || isSuspectRelease(truth, j, bound)) continue;
    if (r < 0 || q < 0) {
      verdict.set(i, r < 0 && q < 0);
      continue;
    }
    const lane = imported.ops.lane[r];
    if (!lanes.has(lane) && ![...lanes.values()].includes(truth.ops.lane[q])) lanes.set(lane, truth.ops.lane[q]);
    verdict.set(
      i,
      lanes.get(lane) === truth.ops.lane[q] &&
        opKey(imported, r) === opKey(truth, q) &&
        rank(imported, r, imported.calls.end[i]) === rank(truth, q, truth.calls.end[j]),
    );
  }
  return pairs.map(([i, j]) => {
    const r = imported.calls.releasedBy[i];
    return {
      call: i,
      kind: imported.calls.kind[i],
      durationNs: imported.calls.end[i] - imported.calls.begin[i],
      answer: r === RELEASED_UNKNOWN ? 'unknown' : r < 0 ? 'none' : releaseHow(imported, i),
      ambiguous: ambiguous.has(i),
      agrees: verdict.get(i),
      truthCall: j,
    };
  });
}

export interface AttributionSummary {
  long: number;
  exact: number;
  deduced: number;
  timing: number;
  none: number;
  unknown: number;
  ambiguous: number;
  /** Inferred (deduced or timing) answers compared with the capture, and how many agree. */
  inferredCompared: number;
  inferredAgree: number;
  exactCompared: number;
  exactAgree: number;
}

export function summarize(checks: readonly WaitCheck[]): AttributionSummary {
  const long = checks.filter((c) => c.durationNs > LONG_WAIT_NS);
  const count = (a: WaitCheck['answer']) => long.filter((c) => c.answer === a).length;
  const inferred = long.filter((c) => (c.answer === 'deduced' || c.answer === 'timing') && c.agrees !== undefined);
  const exact = long.filter((c) => c.answer === 'exact' && c.agrees !== undefined);
  return {
    long: long.length,
    exact: count('exact'),
    deduced: count('deduced'),
    timing: count('timing'),
    none: count('none'),
    unknown: count('unknown'),
    ambiguous: long.filter((c) => c.ambiguous).length,
    inferredCompared: inferred.length,
    inferredAgree: inferred.filter((c) => c.agrees).length,
    exactCompared: exact.length,
    exactAgree: exact.filter((c) => c.agrees).length,
  };
}
