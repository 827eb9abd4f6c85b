// The what-if against the truth: for each program pair of bench/whatif-truth (a bug, and the same
// program with the fix applied), the saving per iteration that the what-if predicts on the buggy
// program's profile and capture traces, for the findings of that pair's fix kind, against the saving
// measured without a recorder (median buggy iter_ns less median fixed). Recorded on a GPU by
// bench/whatif-truth/record.sh; reads test/fixtures/whatif-truth/ (or the directory given) and
// writes bench/results/whatif-truth.md.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { recordedWindow } from '../core/overview/window';
import { h200 } from '../core/simulate/profile';
import { median } from '../core/stats';
import { formatNs } from '../core/units';
import { whatIf } from '../core/whatif/fixes';
import { whatIfJson } from '../core/whatif/whatif-json';
import { loadTraceFile } from '../node/trace-file';
import { repoPath, repoRoot } from '../test/helpers/paths';
import {
  errorPercent,
  InputError,
  measuredSaving,
  parseManifest,
  parseMeasured,
  predictionFor,
  type FixPrediction,
} from './whatif-truth-compare';

const TRACES: [string, string][] = [
  ['profile', '.profile.json.gz'],
  ['capture', '.capture.syncscope.json.gz'],
];

const signed = (ns: number) => (ns < 0 ? `−${formatNs(-ns)}` : formatNs(ns));
const pct = (x: number) => (Number.isFinite(x) ? `${x > 0 ? '+' : ''}${x.toFixed(0)}%` : '—');

/** Each fix of the trace as `whatif --json` gives it: over the recorded window, as the report and the overview. */
function predictions(t: Awaited<ReturnType<typeof loadTraceFile>>, file: string) {
  const json = whatIfJson(whatIf(t, h200, 'all'), { file, profile: h200.name });
  const fixes: FixPrediction[] = json.fixes.map((f) => ({
    kind: f.kind,
    applies: f.applies,
    edit: f.edit,
    perIterationNs: f.savedPerIterationNs,
  }));
  const o = json.overhead;
  const scaled = o?.plain
    ? `; ${o.plain.gpuScale < 1 ? `GPU work at ${Math.round(o.plain.gpuScale * 1000) / 10}%, ` : ''}host work less ${formatNs(o.plain.perRangeNs)} per recorded call or range, then ${Math.round(o.plain.hostScale * 100)}% (plain step ${formatNs(o.plain.plainStepNs)}, recorded ${formatNs(o.plain.recordedStepNs)})`
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

async function main(): Promise<void> {
  const dir = process.argv[2] ?? repoPath('test/fixtures/whatif-truth');
  const measuredFile = join(dir, 'measured.json');
  if (!existsSync(measuredFile))
    throw new InputError(
      `${measuredFile}: not found; record on a GPU machine with bench/whatif-truth/record.sh and copy its ` +
        '$OUT/whatif-truth here, or give the recording directory: node out/bench/whatif-truth.bench.js <dir>',
    );
  const manifestFile = repoPath('bench/whatif-truth/manifest.json');
  const manifest = parseManifest(readFileSync(manifestFile, 'utf8'), manifestFile);
  const measured = parseMeasured(readFileSync(measuredFile, 'utf8'), measuredFile);
  const rows = [
    '| program | fix kind | trace | findings (applied/found) | predicted per iteration | measured (buggy − fixed, medians) | error | trace overhead model; plain-speed calibration |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const notes: string[] = [];
  const errors: Record<string, number[]> = {};
  const split = [
    "| program | trace | plain step: the traced process's vs the buggy runs' | predicted fixed step (plain step less the predicted saving) vs the fixed runs' | error, had the traced process run at the buggy runs' speed |",
    '| --- | --- | --- | --- | --- |',
  ];
  const stepMatched: Record<string, number[]> = {};
  for (const p of manifest.programs) {
    const m = measured.programs[p.name];
    const saving = m && m.buggy.length && m.fixed.length ? measuredSaving(m) : undefined;
    const measuredText = saving
      ? `${signed(saving.savingNs)} (${formatNs(saving.buggyNs)} − ${formatNs(saving.fixedNs)}, ${m.buggy.length}+${m.fixed.length} runs)`
      : 'not measured';
    if (m?.failedRuns.length) notes.push(`${p.name}: failed runs: ${m.failedRuns.join('; ')}`);
    for (const [traceKind, suffix] of TRACES) {
      const file = join(dir, p.name + suffix);
      const cells = [p.name, p.kinds.join(' / '), traceKind];
      if (!existsSync(file)) {
        rows.push(`| ${[...cells, 'no trace', '—', measuredText, '—', '—'].join(' | ')} |`);
        continue;
      }
      const t = await loadTraceFile(file);
      const { fixes, overhead, iterations, window, plainStepNs } = predictions(t, relative(repoRoot, file));
      const k = predictionFor(fixes, p.kinds);
      const found = k.kind ? `${k.kind}: ${k.applied}/${k.found}` : (k.why ?? '');
      const each = k.perIterationNs;
      if (each !== undefined && saving) (errors[traceKind] ??= []).push(errorPercent(each, saving.savingNs));
      rows.push(
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
        split.push(splitRow(p.name, traceKind, plainStepNs, each, saving, stepMatched));
      const others = [...new Set(fixes.filter((f) => !p.kinds.includes(f.kind)).map((f) => f.kind))];
      notes.push(
        `${p.name} ${traceKind}: recorded window: ${window}` +
          (others.length ? `; other fixes offered: ${others.join(', ')}` : ''),
      );
    }
  }
  const commit = execSync('git rev-parse --short HEAD', { cwd: repoRoot }).toString().trim();
  const text = [
    '# What-if against the measured saving of applying the fix',
    '',
    `${new Date().toISOString().slice(0, 10)}, ${hostname()}, commit ${commit}. \`npm run bench:whatif-truth\` ` +
      `(recording: ${relative(repoRoot, dir) || '.'}, ${measured.recordedWith.replace(/\n/g, '; ')}).`,
    '',
    'Each program of bench/whatif-truth/programs has a bug and, with `--fixed`, the same program with the fix',
    "applied. Measured: the median over plain runs (no recorder) of the buggy program's iter_ns less the fixed",
    "one's (bench/whatif-truth/record.sh). Predicted: the what-if on the buggy program's traces (`syncscope profile`",
    "and `syncscope capture`), h200 simulator profile, for the findings of the pair's fix kind (the first kind",
    'listed that the trace has; several findings of it are summed, each simulated alone): per iteration as',
    '`syncscope whatif --json`, the report and the overview give it (the recorded window, warm-up left out,',
    'until its work is done). Error: (predicted − measured) / |measured|. A negative saving is a cost (a race',
    'fix adds a wait).',
    '',
    ...rows,
    '',
    ...targetLines(errors),
    '',
    '## Where the error comes from',
    '',
    'A saving is predicted against the plain step timed in the traced process (`--plain-steps`), and',
    'measured against plain runs of the buggy program in processes of their own. Where those processes',
    'run the buggy program at another speed, the prediction is off by that much, however well the fixed',
    'step is predicted. Diagnostic only: the target is the table above.',
    '',
    ...split,
    '',
    ...targetLines(stepMatched).map((l) => l.replace(/\(target: .*\)\.$/, '(diagnostic, not the target).')),
    '',
    ...notes.map((n) => `- ${n}`),
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
