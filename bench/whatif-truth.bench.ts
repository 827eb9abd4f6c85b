// The what-if against the truth: for each program pair of bench/whatif-truth (a bug, and the same
// program with the fix applied), the saving per iteration that the what-if predicts on the buggy
// program's profile and capture traces, for the findings of that pair's fix kind, against the saving
// measured without a recorder (median buggy iter_ns less median fixed). Recorded on a GPU by
// bench/whatif-truth/record.sh; reads the recordings of test/fixtures/whatif-truth/ (the programs the
// what-if was built against) and test/fixtures/whatif-truth-unseen/, -waits/ and -fresh/ (programs
// written after it), or the directories given, and writes bench/results/whatif-truth.md.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, relative } from 'node:path';
import { recordedWindow } from '../core/overview/window';
import { h200 } from '../core/simulate/profile';
import { median } from '../core/stats';
import { formatNs } from '../core/units';
import { savedPerIterationNs, whatIf } from '../core/whatif/fixes';
import { whatIfJson } from '../core/whatif/whatif-json';
import { callSite, type Trace } from '../core/trace/model';
import { loadTraceFile } from '../node/trace-file';
import { repoPath, repoRoot } from '../test/helpers/paths';
import {
  errorPercent,
  InputError,
  measuredSaving,
  pairedSavings,
  parseManifest,
  parseMeasured,
  predictionFor,
  type FixPrediction,
  type Manifest,
} from './whatif-truth-compare';

const TRACES: [string, string][] = [
  ['profile', '.profile.json.gz'],
  ['capture', '.capture.syncscope.json.gz'],
];

const signed = (ns: number) => (ns < 0 ? `−${formatNs(-ns)}` : formatNs(ns));
const pct = (x: number) => (Number.isFinite(x) ? `${x > 0 ? '+' : ''}${x.toFixed(0)}%` : '—');

/** The lines of `program`'s file that `calls` were made at. */
function programLines(t: Trace, calls: number[], program: string): number[] {
  const lines = new Set<number>();
  for (const c of calls) {
    const frame = callSite(t, c)?.frame;
    if (frame && basename(frame.file) === `${program}.py`) lines.add(frame.line);
  }
  return [...lines];
}

/** The saving per iteration of the findings `ids` simulated together, in one scenario. */
function together(t: Trace, ids: string[]): number | undefined {
  const [r] = whatIf(t, h200, [ids.join('+')]);
  return r ? (savedPerIterationNs(r) ?? undefined) : undefined;
}

/** Each fix of the trace as `whatif --json` gives it: over the recorded window, as the report and the overview. */
function predictions(t: Trace, file: string, program: string) {
  const json = whatIfJson(whatIf(t, h200, 'all'), { file, profile: h200.name });
  const fixes: FixPrediction[] = json.fixes.map((f) => ({
    id: f.id,
    kind: f.kind,
    applies: f.applies,
    edit: f.edit,
    perIterationNs: f.savedPerIterationNs,
    lines: programLines(t, f.calls, program),
  }));
  const o = json.overhead;
  const scaled = o?.plain
    ? `; ${o.plain.gpuScale < 1 ? `GPU work at ${Math.round(o.plain.gpuScale * 1000) / 10}%, ` : ''}${o.plain.gpuPerOpNs ? `each op's lead less ${formatNs(o.plain.gpuPerOpNs)}, ` : ''}host work less ${formatNs(o.plain.perRangeNs)} per recorded call or range, then ${Math.round(o.plain.hostScale * 100)}% (plain step ${formatNs(o.plain.plainStepNs)}, recorded ${formatNs(o.plain.recordedStepNs)})`
    : o?.plainUnused
      ? `; ${o.plainUnused}`
      : '';
  const overhead = o ? `${o.model}${o.kind ? ` (${o.kind})` : ''}${scaled}` : '—';
  return {
    fixes,
    overhead,
    iterations: json.iterations,
    window: recordedWindow(t).summary.text,
    plainStepNs: o?.plain?.plainStepNs,
  };
}

/** One recording's rows: its programs against their traces, the error's split, and notes. */
interface RecordingTables {
  rows: string[];
  split: string[];
  notes: string[];
  errors: Record<string, number[]>;
  /** Per trace kind, whether each prediction lies within the least and most of the pairs' own savings. */
  inPairs: Record<string, boolean[]>;
  stepMatched: Record<string, number[]>;
  recordedWith: string;
}

async function recordingTables(dir: string, manifest: Manifest): Promise<RecordingTables> {
  const measuredFile = join(dir, 'measured.json');
  if (!existsSync(measuredFile))
    throw new InputError(
      `${measuredFile}: not found; record on a GPU machine with bench/whatif-truth/record.sh and copy its ` +
        '$OUT/whatif-truth here, or give the recording directories: node out/bench/whatif-truth.bench.js <dir>...',
    );
  const measured = parseMeasured(readFileSync(measuredFile, 'utf8'), measuredFile);
  const out: RecordingTables = {
    rows: [],
    split: [],
    notes: [],
    errors: {},
    inPairs: {},
    stepMatched: {},
    recordedWith:
      measured.recordedWith.replace(/\n/g, '; ') +
      (measured.timedWith ? `; plain runs timed with ${measured.timedWith.join(' ')}` : ''),
  };
  for (const p of manifest.programs) {
    const m = measured.programs[p.name];
    if (!m) continue; // another recording's program
    const saving = m.buggy.length && m.fixed.length ? measuredSaving(m) : undefined;
    const pairs = pairedSavings(m);
    const measuredText = saving
      ? `${signed(saving.savingNs)} (${formatNs(saving.buggyNs)} − ${formatNs(saving.fixedNs)}, ${m.buggy.length}+${m.fixed.length} runs; pairs ${pairs ? `${signed(pairs.leastNs)} to ${signed(pairs.mostNs)}` : '—'})`
      : 'not measured';
    if (m.failedRuns.length) out.notes.push(`${p.name}: failed runs: ${m.failedRuns.join('; ')}`);
    for (const [traceKind, suffix] of TRACES) {
      const file = join(dir, p.name + suffix);
      const cells = [p.name, p.kinds.join(' / ') + (p.lines ? ` at line ${p.lines.join(', ')}` : ''), traceKind];
      if (!existsSync(file)) {
        out.rows.push(`| ${[...cells, 'no trace', '—', measuredText, '—', '—'].join(' | ')} |`);
        continue;
      }
      const t = await loadTraceFile(file);
      const { fixes, overhead, iterations, window, plainStepNs } = predictions(t, relative(repoRoot, file), p.name);
      const k = predictionFor(fixes, p.kinds, p.lines);
      const found = k.kind
        ? `${k.kind}: ${k.applied}/${k.found}${k.ids && k.ids.length > 1 ? ` (${k.ids.join('+')})` : ''}`
        : (k.why ?? '');
      const each = k.ids && k.ids.length > 1 ? together(t, k.ids) : k.perIterationNs;
      if (each !== undefined && saving) (out.errors[traceKind] ??= []).push(errorPercent(each, saving.savingNs));
      if (each !== undefined && pairs) (out.inPairs[traceKind] ??= []).push(insidePairs(each, pairs));
      out.rows.push(
        `| ${[
          ...cells,
          found,
          each !== undefined ? `${signed(each)} (${iterations} iterations)` : (k.why ?? '—'),
          measuredText,
          each !== undefined && saving ? pct(errorPercent(each, saving.savingNs)) : '—',
          overhead,
        ].join(' | ')} |`,
      );
      if (each !== undefined && saving && plainStepNs !== undefined)
        out.split.push(splitRow(p.name, traceKind, plainStepNs, each, saving, out.stepMatched));
      const others = [...new Set(fixes.filter((f) => !p.kinds.includes(f.kind)).map((f) => f.kind))];
      out.notes.push(
        `${p.name} ${traceKind}: recorded window: ${window}` +
          (others.length ? `; other fixes offered: ${others.join(', ')}` : ''),
      );
    }
  }
  return out;
}

const ROWS_HEAD = [
  '| program | fix kind | trace | findings (applied/found) | predicted per iteration | measured (buggy − fixed, medians) | error | trace overhead model; plain-speed calibration |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
const SPLIT_HEAD = [
  "| program | trace | plain step: the traced process's vs the buggy runs' | predicted fixed step (plain step less the predicted saving) vs the fixed runs' | error, had the traced process run at the buggy runs' speed |",
  '| --- | --- | --- | --- | --- |',
];

/** The recordings read by default: the programs the what-if was built against, then those written after it. */
const RECORDINGS: [string, string][] = [
  ['test/fixtures/whatif-truth', 'Programs the what-if was built against'],
  [
    'test/fixtures/whatif-truth-unseen',
    "Programs written after the what-if was built (the recording's README says which of them led to which change)",
  ],
  [
    'test/fixtures/whatif-truth-waits',
    'Programs written after the what-if was built, recorded with the clocks of the waits and of the DataLoader receive',
  ],
  [
    'test/fixtures/whatif-truth-fresh',
    "Programs written after every change above, recorded with every clock (the recording's README says whether any change followed from them)",
  ],
  [
    'test/fixtures/whatif-truth-device-wait',
    "A fix kind simulated after the recordings above: device-wide-wait, on a program written for it (the recording's README says whether any change followed from it)",
  ],
];

async function main(): Promise<void> {
  const given = process.argv.slice(2);
  const recordings: [string, string][] = given.length
    ? given.map((d) => [d, relative(repoRoot, d) || '.'])
    : RECORDINGS.map(([d, title]) => [repoPath(d), title]);
  const manifestFile = repoPath('bench/whatif-truth/manifest.json');
  const manifest = parseManifest(readFileSync(manifestFile, 'utf8'), manifestFile);
  const commit = execSync('git rev-parse --short HEAD', { cwd: repoRoot }).toString().trim();
  const sections: string[] = [];
  const split: string[] = [];
  const notes: string[] = [];
  for (const [dir, title] of recordings) {
    const r = await recordingTables(dir, manifest);
    sections.push(
      `## ${title}`,
      '',
      `Recording: ${relative(repoRoot, dir) || '.'} (${r.recordedWith}).`,
      '',
      ...ROWS_HEAD,
      ...r.rows,
      '',
      ...targetLines(r.errors),
      ...spreadLine(r.inPairs),
      '',
    );
    split.push(`${relative(repoRoot, dir)}:`, '', ...SPLIT_HEAD, ...r.split, '');
    split.push(
      ...targetLines(r.stepMatched).map((l) => l.replace(/\(target: .*\)\.$/, '(diagnostic, not the target).')),
      '',
    );
    notes.push(...r.notes.map((n) => `- ${relative(repoRoot, dir)}: ${n}`));
  }
  const text = [
    '# What-if against the measured saving of applying the fix',
    '',
    `${new Date().toISOString().slice(0, 10)}, ${hostname()}, commit ${commit}. \`npm run bench:whatif-truth\`.`,
    '',
    'Each program of bench/whatif-truth/programs has a bug and, with `--fixed`, the same program with the fix',
    "applied. Measured: the median over plain runs (no recorder) of the buggy program's iter_ns less the fixed",
    "one's (bench/whatif-truth/record.sh); the runs alternate, and each pair's own difference, least and most, says",
    "how far one pair strays. Predicted: the what-if on the buggy program's traces (`syncscope profile`",
    "and `syncscope capture`), h200 simulator profile, for the findings of the pair's fix kind (the first kind",
    'listed that the trace has, at the lines listed where the fix leaves others of that kind; several findings of it',
    'are simulated together, in one scenario, as the one change to the program removes them all): per iteration as',
    '`syncscope whatif --json`, the report and the overview give it (the recorded window, warm-up left out,',
    'until its work is done). Error: (predicted − measured) / |measured|. A negative saving is a cost (a race',
    'fix adds a wait).',
    '',
    ...sections,
    '## Where the error comes from',
    '',
    'A saving is predicted against the plain step timed in the traced process (`--plain-steps`), and',
    'measured against plain runs of the buggy program in processes of their own. Where those processes',
    'run the buggy program at another speed, the prediction is off by that much, however well the fixed',
    'step is predicted. Diagnostic only: the target is the tables above.',
    '',
    ...split,
    ...notes,
    '',
  ].join('\n');
  writeFileSync(repoPath('bench/results/whatif-truth.md'), text);
  process.stdout.write(text);
}

/** One row of the error's split: the plain step against the buggy runs, the fixed step predicted against the fixed runs. */
function splitRow(
  program: string,
  traceKind: string,
  plainStepNs: number,
  predictedNs: number,
  saving: ReturnType<typeof measuredSaving>,
  stepMatched: Record<string, number[]>,
): string {
  const fixedNs = plainStepNs - predictedNs;
  const matched = errorPercent(saving.buggyNs - fixedNs, saving.savingNs);
  (stepMatched[traceKind] ??= []).push(matched);
  const versus = (ns: number, truth: number) =>
    `${formatNs(ns)} vs ${formatNs(truth)} (${pct(errorPercent(ns, truth))})`;
  return `| ${[program, traceKind, versus(plainStepNs, saving.buggyNs), versus(fixedNs, saving.fixedNs), pct(matched)].join(' | ')} |`;
}

/** A prediction between the least and the most of the pairs' own savings: as near as the runs are to each other. */
const insidePairs = (ns: number, pairs: { leastNs: number; mostNs: number }): boolean =>
  ns >= pairs.leastNs && ns <= pairs.mostNs;

/** How many predictions of each trace kind lie inside the measured pairs' spread. */
function spreadLine(inPairs: Record<string, boolean[]>): string[] {
  const kinds = Object.entries(inPairs);
  if (!kinds.length) return [];
  const each = kinds.map(([kind, xs]) => `${kind} ${xs.filter(Boolean).length} of ${xs.length}`).join(', ');
  return [
    `Inside the spread of the measured pairs (least to most of each pair's own buggy − fixed; the runs' own noise): ${each}.`,
  ];
}

/** Against the target (every prediction within 20% of the measured saving, the median within 10%), per kind of trace and in all. */
function targetLines(errors: Record<string, number[]>): string[] {
  const line = (what: string, xs: number[]) => {
    const off = xs.map(Math.abs);
    const within = (bound: number) => off.filter((x) => x <= bound).length;
    const middle = median(off);
    return (
      `${what}: ${within(10)} of ${xs.length} within 10%, ${within(20)} within 20%, median error ${middle.toFixed(0)}% ` +
      `(target: all within 20%, median within 10%: ${within(20) === xs.length && middle <= 10 ? 'met' : 'NOT met'}).`
    );
  };
  const all = Object.values(errors).flat();
  return [...Object.entries(errors).map(([kind, xs]) => line(`From ${kind} traces`, xs)), line('In all', all)];
}

main().catch((e: Error) => {
  process.stderr.write(`${e instanceof InputError ? e.message : (e.stack ?? e.message)}\n`);
  process.exit(1);
});
