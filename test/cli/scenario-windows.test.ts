// The window of `scenario`, `replay` and `whatif` (--from/--to/--steps): a window that makes no
// scenario is a usage error naming the trace's range, and every window that is taken makes a scenario
// that `check` takes too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from '../../cli/args';
import { spec, windowOf } from '../../cli/commands/scenario';
import { scenarioBudget } from '../../cli/input';
import { UsageError } from '../../cli/io';
import { loadAnyTrace } from '../../cli/load-trace';
import { parseScenario } from '../../core/scenario/parse';
import { h200 } from '../../core/simulate';
import { traceToJson } from '../../core/trace/json';
import { CK } from '../../core/trace/kinds';
import { str, traceExtent, TraceBuilder, type Trace } from '../../core/trace/model';
import { scenarioFromTrace } from '../../core/whatif/from-trace';
import { compileGenerated } from '../../core/whatif/replay';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

/** A launch at 0, its kernel, and a stream sync at 6,000 ns that waits for it until 2,345,678 ns. */
function small(): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'side', device: 0, nonBlocking: true, handle: 7 });
  const l = b.call({ lane: host, kind: 'launch', begin: 0, end: 5000, stream: s, name: 'cudaLaunchKernel' });
  b.op({ lane: s, kind: 'kernel', start: 10_000, end: 2_340_000, call: l, name: 'k' });
  b.call({
    lane: host,
    kind: 'streamSync',
    begin: 6000,
    end: 2_345_678,
    stream: s,
    blockedNs: 2_339_678,
    releasedBy: 0,
  });
  return b.finish({ source: 'capture', clock: 'test', alignmentErrorNs: 0 });
}

/** Kernels with no host call at all, and a trace whose only call is a framework range. */
function withoutHostCalls(): { noCalls: Trace; onlyRanges: Trace } {
  const make = (range: boolean) => {
    const b = new TraceBuilder();
    const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
    const s = b.lane({ kind: 'stream', name: 'side', device: 0, handle: 7 });
    if (range) b.call({ lane: host, kind: 'context', begin: 0, end: 9000, name: 'ProfilerStep#1' });
    b.op({ lane: s, kind: 'kernel', start: 1000, end: 8000, name: 'k' });
    return b.finish({ source: 'pytorch', clock: 'test', alignmentErrorNs: 0 });
  };
  return { noCalls: make(false), onlyRanges: make(true) };
}

function savedDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-window-'));
  const { noCalls, onlyRanges } = withoutHostCalls();
  writeFileSync(join(dir, 'small.syncscope.json'), traceToJson(small()));
  writeFileSync(join(dir, 'nocalls.syncscope.json'), traceToJson(noCalls));
  writeFileSync(join(dir, 'ranges.syncscope.json'), traceToJson(onlyRanges));
  return dir;
}

test('a window that holds no host call is a usage error that names the trace range, read by hand', async () => {
  const dir = savedDir();
  const spans = 'this trace spans 0 to 2,345,678 ns';
  const cases: [string[], string][] = [
    [['--from', '1000', '--to', '500'], `--from 1000 --to 500: the window is empty; ${spans}`],
    [['--from', '0', '--to', '0'], `--from 0 --to 0: the window is empty; ${spans}`],
    [['--to', '0'], `--to 0: the window is empty; ${spans}`],
    [['--from', '2345678'], `--from 2345678: the window begins after the trace ends; ${spans}`],
    [['--from', '10', '--to', '2345679'], `--from 10 --to 2345679: the window ends after the trace does; ${spans}`],
    [
      ['--from', '7000', '--to', '9000'],
      `--from 7000 --to 9000: no host call begins in the window; ${spans}, its host calls beginning from 0 to 6,000 ns`,
    ],
    [
      ['--from', '9007199254740993'],
      '--from 9007199254740993: expected a whole number of ns from 0 to 2^53 - 1, as in 2500000',
    ],
    [['--to', '2.5e6'], '--to 2.5e6: expected a whole number of ns from 0 to 2^53 - 1, as in 2500000'],
    [['--from', '1', '--steps', '1:2'], '--steps and --from/--to: give one of them'],
    [['--steps', '5:3'], '--steps 5:3: the first step is after the last; expected a:b with a <= b'],
  ];
  for (const command of ['scenario', 'replay', 'whatif'])
    for (const [window, message] of cases) {
      const out = command === 'scenario' ? ['-o', 'out.scenario.json'] : [];
      const r = await runCli([command, 'small.syncscope.json', ...out, ...window], dir);
      const what = `${command} ${window.join(' ')}`;
      assert.equal(r.code, 2, what);
      assert.equal(r.stderr.split('\n')[0], `syncscope ${command}: ${message}`, what);
      assert.match(r.stderr, /\nusage: syncscope /, what);
    }
});

test('a window that holds a host call is taken: the scenario has its calls, and check takes it', async () => {
  const dir = savedDir();
  // The sync alone (it begins at 6,000 ns), then both calls.
  for (const [window, steps] of [
    [['--from', '6000', '--to', '6001'], '1 steps'],
    [['--to', '2345678'], '3 steps'],
  ] as const) {
    const w = await runCli(['scenario', 'small.syncscope.json', '-o', 'w.scenario.json', ...window], dir);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, new RegExp(`: 1 host threads, ${steps}\\n$`));
    const c = await runCli(['check', 'w.scenario.json'], dir);
    assert.equal(c.code, 0, c.stderr);
  }
  const r = await runCli(['replay', 'small.syncscope.json', '--from', '6000', '--to', '6001'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Waits: 1;/m);
});

test('a trace without host calls: nothing to turn into a scenario, replay or simulate, and no position in a file that does not exist', async () => {
  const dir = savedDir();
  for (const file of ['nocalls.syncscope.json', 'ranges.syncscope.json'])
    for (const [command, nothing] of [
      ['scenario', 'turn into a scenario'],
      ['replay', 'replay'],
      ['whatif', 'simulate'],
    ]) {
      const out = command === 'scenario' ? ['-o', 'out.scenario.json'] : [];
      const r = await runCli([command, file, ...out], dir);
      assert.equal(r.code, 2, `${command} ${file}`);
      assert.equal(
        r.stderr.split('\n')[0],
        `syncscope ${command}: ${file}: the trace has no host calls, so there is nothing to ${nothing}`,
      );
      assert.doesNotMatch(r.stderr, /generated\.scenario\.json/);
    }
  // Called directly, the generator says the same rather than write `"threads": {}`.
  assert.throws(
    () => scenarioFromTrace(withoutHostCalls().onlyRanges, h200),
    /^Error: nothing to turn into a scenario: the trace has no host calls$/,
  );
});

// ---- The property, over every trace fixture ----------------------------------------------------

const isTraceFixture = (path: string) =>
  /\.json(\.gz)?$/.test(path) && !path.includes('fake-torch') && !path.endsWith('/measured.json');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The ProfilerStep number of the trace's first step range, if it has one. */
function firstStep(t: Trace): number | undefined {
  for (let i = 0; i < t.calls.count; i++) {
    const m = t.calls.kind[i] === CK.context ? /^ProfilerStep#(\d+)$/.exec(str(t, t.calls.name[i])) : null;
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** Windows of every shape: the whole trace, halves, one step, empty, reversed, one ns, past the end. */
function windowsOf(t: Trace): string[][] {
  const { start, end } = traceExtent(t);
  const length = Math.ceil(end - start);
  const half = Math.floor(length / 2);
  const step = firstStep(t) ?? 0;
  return [
    [],
    ['--to', `${half}`],
    ['--from', `${half}`],
    ['--steps', `${step}:${step}`],
    ['--from', `${half}`, '--to', `${half}`],
    ['--from', `${half + 1}`, '--to', `${half}`],
    ['--from', `${half}`, '--to', `${half + 1}`],
    ['--from', `${length}`],
  ];
}

test('every fixture, every window: the scenario compiles as check reads it, or the window is a usage error', async () => {
  const fixtures = walk(repoPath('test/fixtures')).filter(isTraceFixture);
  assert.ok(fixtures.length >= 30, `${fixtures.length} trace fixtures`);
  let taken = 0;
  for (const path of fixtures) {
    const name = relative(repoPath('test/fixtures'), path);
    const t = await loadAnyTrace(path);
    windowsOf(t).forEach((argv, k) => {
      const what = `${name} ${argv.join(' ')}`;
      let w;
      try {
        w = windowOf(parseArgs(argv, spec.options), t, name, 'turn into a scenario');
      } catch (e) {
        assert.ok(e instanceof UsageError, `${what}: ${(e as Error).message}`);
        // Every fixture has host calls, so the whole trace is always taken.
        assert.ok(k > 0, `${what}: ${e.message}`);
        if (!argv.includes('--steps')) assert.match(e.message, /this trace spans 0 to [\d,]+ ns/, what);
        return;
      }
      // Empty and reversed windows are never taken.
      assert.ok(k !== 4 && k !== 5, `${what}: taken`);
      const g = scenarioFromTrace(t, h200, w);
      const { errors } = parseScenario(g.text, 'out.scenario.json', scenarioBudget());
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
        what,
      );
      compileGenerated(g);
      taken++;
    });
  }
  assert.ok(taken > fixtures.length, `${taken} windows taken`);
});
