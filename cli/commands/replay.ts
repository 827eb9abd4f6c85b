import { h200 } from '../../core/simulate/profile';
import { escapeControlsKeepLines } from '../../core/terminal';
import { formatNs } from '../../core/units';
import {
  LONG_WAIT_NS,
  replay,
  SPAN_TOLERANCE,
  type IterationSpan,
  type Replay,
  type WaitReplay,
} from '../../core/whatif/replay';
import { replayJson, waitMatches } from '../../core/whatif/replay-json';
import { shortKernelName } from '../../core/trace/kernel-names';
import { RELEASED_NONE, str, type Trace } from '../../core/trace/model';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs } from '../args';
import { CliIo, EXIT } from '../io';
import { loadInput, readProfile } from '../input';
import { windowOf, WINDOW_OPTIONS } from './scenario';

export const spec: CommandSpec = {
  name: 'replay',
  synopsis: ['<trace> [--from ns --to ns | --steps a:b]'],
  summary: 'simulate the scenario made from a trace and compare: host spans, iterations, waits, releasing ops',
  options: [
    ...WINDOW_OPTIONS,
    OPTIONS.profile,
    { name: 'json', help: 'print the comparison as JSON (media/schema/replay.schema.json)' },
    { name: 'all', help: `list every wait, not only those that blocked over ${formatNs(LONG_WAIT_NS)}` },
  ],
};

const pct = (e: number) => (Number.isFinite(e) ? `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%` : '—');

/** Iterations printed one a line; a longer loop prints its first ones and its worst. */
const ITERATIONS_LISTED = 20;

function iterationLines(its: IterationSpan[], from: Replay['iterationsFrom']): string[] {
  if (!its.length) return ['Iterations: no loop found (no ProfilerStep ranges, no call sequence that repeats)'];
  const within = its.filter((i) => Math.abs(i.error) <= SPAN_TOLERANCE).length;
  const worst = its.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
  const how = from === 'ProfilerStep' ? 'ProfilerStep ranges' : 'a call sequence that repeats';
  const line = (i: IterationSpan) =>
    `  ${its.length > 1 && new Set(its.map((x) => x.thread)).size > 1 ? `${i.thread} ` : ''}${i.label} (calls ${i.firstCall}-${i.lastCall}): ${formatNs(i.measuredNs)} -> ${formatNs(i.replayedNs)} (${pct(i.error)})` +
    (i.why ? `\n      ${i.why}` : '');
  const shown = its.length <= ITERATIONS_LISTED ? its : [...its.slice(0, ITERATIONS_LISTED - 1), worst];
  const out = [
    `Iterations (${how}): ${its.length}; ${within} within 5% of the measured span; worst ${worst.label} ${pct(worst.error)}`,
    ...shown.map(line),
  ];
  if (shown.length < its.length) out.splice(ITERATIONS_LISTED, 0, `  ... ${its.length - shown.length} more`);
  return out;
}

const releaser = (t: Trace, op: number): string =>
  op === RELEASED_NONE
    ? 'nothing pending'
    : op < 0
      ? 'unknown'
      : `op ${op} ${JSON.stringify(shortKernelName(str(t, t.ops.name[op])))}`;

/** One wait: blocked measured -> replayed, and the releasing op of each side. */
function waitLine(t: Trace, w: WaitReplay): string {
  const head = `  call ${w.call} ${w.name}${w.inferred ? ` (inferred, ${w.inferred})` : ''}`;
  const body = w.leftOut
    ? `blocked ${formatNs(w.measuredNs)}, not replayed: left out of the scenario (${w.leftOut})`
    : `blocked ${formatNs(w.measuredNs)} -> ${formatNs(w.replayedNs)} (${pct(w.error)}), released by ${releaser(t, w.measuredBy)} -> ${w.amongCandidates ? `${releaser(t, w.replayedBy)}, one of the ops the trace leaves it between` : w.sameReleaser ? 'the same' : releaser(t, w.replayedBy)}`;
  return `${head}: ${body}` + (w.why && !w.leftOut ? `\n      ${w.why}` : '');
}

/** `replay <trace>`: how well the simulator reproduces the trace. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'trace file');
  const { trace } = await loadInput(file, io);
  const profile = (await readProfile(flagString(args, 'profile'), io)) ?? h200;
  const r = replay(trace, profile, windowOf(args, trace, file, 'replay'));
  const all = args.flags.has('all');
  if (args.flags.has('json')) {
    io.stdout(JSON.stringify(replayJson(trace, r, { file, profile: profile.name, all })) + '\n');
    return EXIT.ok;
  }
  const lines = [`${file}: replayed with the ${profile.name} profile`, 'Host threads (span measured -> replayed):'];
  for (const s of r.spans)
    lines.push(
      `  ${s.thread}: ${formatNs(s.measuredNs)} -> ${formatNs(s.replayedNs)} (${pct(s.error)}${Math.abs(s.error) <= SPAN_TOLERANCE ? '' : ', off by more than 5%'})`,
    );
  lines.push(...iterationLines(r.iterations, r.iterationsFrom));
  const long = r.waits.filter((w) => w.measuredNs > LONG_WAIT_NS);
  const held = long.filter(waitMatches);
  lines.push(
    `Waits: ${r.waits.length}; ${long.length} blocked over ${formatNs(LONG_WAIT_NS)}, ${held.length} of them within 15% with the same releasing op`,
  );
  for (const w of all ? r.waits : long) lines.push(waitLine(trace, w));
  if (r.scenario.marked)
    lines.push(`${r.scenario.marked} steps were marked in the scenario (syncscope scenario shows why)`);
  if (r.scenario.inferred)
    lines.push(
      `${r.scenario.inferred} steps or declarations were inferred from the trace's data (marked in the scenario)`,
    );
  io.stdout(escapeControlsKeepLines(lines.join('\n')) + '\n');
  return EXIT.ok;
}
