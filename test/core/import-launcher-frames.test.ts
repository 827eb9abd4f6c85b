// `syncscope profile` runs a script under its launcher (python/syncscope_profile.py), whose Python
// frames Kineto records with the script's: the ones that run the script, the wrappers around
// synchronizing methods and the launcher's own work. None of them is the user's: none may appear
// on a lane, in a context or in a site's stack. Traces recorded on an H200 (test/fixtures/torch/profile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { importPytorch } from '../../core/import/pytorch';
import { launcherRole } from '../../core/import/python-sites';
import { CK, str, type Trace } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const DIR = repoPath('test', 'fixtures', 'torch', 'profile');
const LAUNCHER_OR_RUNNER = /syncscope_profile\.py|runpy|<built-in function exec>/;
const load = (file: string): Trace => importPytorch(gunzipSync(readFileSync(`${DIR}/${file}`)));

/** No call (a lane's frame or a range) and no site's stack of profile `file` names the launcher or runpy. */
function assertNoLauncherFrames(dir: string, file: string): Trace {
  const t = importPytorch(gunzipSync(readFileSync(`${dir}/${file}`)));
  const calls = [...Array(t.calls.count).keys()].map((i) => str(t, t.calls.name[i]));
  assert.deepEqual(
    calls.filter((n) => LAUNCHER_OR_RUNNER.test(n)),
    [],
    file,
  );
  const frames = t.sites.flatMap((s) => s.stack.map((f) => f.file));
  assert.deepEqual(
    frames.filter((f) => LAUNCHER_OR_RUNNER.test(f)),
    [],
    file,
  );
  return t;
}

test("the launcher's frames are on no lane, in no context and in no site of a profiled script", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.profile.json.gz'));
  assert.equal(files.length, 6);
  for (const file of files) assertNoLauncherFrames(DIR, file);
});

test("a recording begun at the script's first step shows the script's frames, and none of the launcher's", () => {
  const dir = repoPath('test', 'fixtures', 'python');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.profile.json.gz'))) assertNoLauncherFrames(dir, file);
  // torch.profiler starts inside the launcher's step hook; the script's <module> is inside runpy's
  // _run_code with no exec call between them. Its frames are shown: torch's backward() among them.
  const t = assertNoLauncherFrames(dir, 'time_backward.profile.json.gz');
  const shown = [...Array(t.calls.count).keys()]
    .filter((i) => t.calls.kind[i] === CK.context)
    .map((i) => str(t, t.calls.name[i]));
  assert.ok(shown.includes('time_backward.py(24): <module>'));
  assert.equal(shown.filter((n) => n === 'torch/_tensor.py(576): backward').length, 5);
  assert.ok(!shown.some((n) => /<built-in method update of dict/.test(n)), "runpy's own work is not shown");
});

test("a profiled script's main thread starts with its own <module>, under the profiler's step", () => {
  const t = load('train_step.profile.json.gz');
  const c = t.calls;
  const outer: string[] = [];
  for (let i = 0; i < c.count && outer.length < 2; i++)
    if (c.lane[i] === 0 && c.kind[i] === CK.context && c.depth[i] <= 1)
      outer.push(`${c.depth[i]} ${str(t, c.name[i])}`);
  assert.deepEqual(outer, ['0 ProfilerStep#0', '1 train_step.py(0): <module>']);
});

test("launcherRole: each launcher frame's part, read from a recorded trace's names", () => {
  const L = '/home/dev/syncscope/dist/syncscope_profile.py';
  assert.equal(launcherRole(`${L}(429): <module>`, true), 'chain');
  assert.equal(launcherRole(`${L}(413): main`, true), 'chain');
  assert.equal(launcherRole(`${L}(346): run_script`, true), 'chain');
  assert.equal(launcherRole('<frozen runpy>(262): run_path', true), 'chain');
  assert.equal(launcherRole('<built-in function exec>', true), 'exec');
  assert.equal(launcherRole(`${L}(112): wrapper`, false), 'wrapper');
  assert.equal(launcherRole(`${L}(96): mark`, false), 'own');
  assert.equal(launcherRole(`${L}(279): start`, true), 'own');
  // runpy and exec below a frame of the user's are the user's own calls.
  assert.equal(launcherRole('<frozen runpy>(262): run_path', false), undefined);
  assert.equal(launcherRole('<built-in function exec>', false), undefined);
  // runpy's _run_code, and a script's <module> that a recording begun mid-script sees inside it.
  assert.equal(launcherRole('<frozen runpy>(88): _run_code', true), 'runCode');
  assert.equal(launcherRole('train_step.py(0): <module>', true), 'module');
  assert.equal(launcherRole('train_step.py(0): <module>', false), undefined);
  assert.equal(launcherRole('/srv/app/my_syncscope_profile.py(3): main', true), undefined);
});

// The launcher's step() runs in the optimizer's post-step hook, inside Optimizer.step's range:
// each ProfilerStep#N begins inside step N-1's Optimizer.step and outlasts it. In
// test/fixtures/whatif-programs/item_every_step.profile.json.gz (read by hand), step 10's
// Optimizer.step#SGD.step runs from ts 5641262743440.161 to 5641262744338.723 µs and ProfilerStep#11
// from 5641262744300.472 to 5641262751639.161. A range is inside the innermost one that lasts until it
// ends: stacked on the range it began in, each step would nest in the one before, its depth and its
// calls' context growing with every step. Both readers (JavaScript, and native where built) follow it.
test('a ProfilerStep begun inside the previous Optimizer.step is not nested in it, nor its successors in it', async () => {
  const file = repoPath('test/fixtures/whatif-programs/item_every_step.profile.json.gz');
  const readers: [string, Trace][] = [
    ['javascript', importPytorch(gunzipSync(readFileSync(file)))],
    ['loadTraceFile', await loadTraceFile(file)],
  ];
  for (const [reader, t] of readers) {
    const c = t.calls;
    const ranges = (re: RegExp) =>
      [...Array(c.count).keys()].filter((i) => c.kind[i] === CK.context && re.test(str(t, c.name[i])));
    const steps = ranges(/^ProfilerStep#\d+$/);
    const optimizer = ranges(/^Optimizer\.step#SGD\.step$/);
    assert.deepEqual(
      steps.map((i) => str(t, c.name[i])),
      ['#10', '#11', '#12', '#13', '#14', '#15', '#16', '#17', '#18', '#19'].map((n) => 'ProfilerStep' + n),
      reader,
    );
    // The premise, as imported: 860.311 µs after step 10's Optimizer.step began, ProfilerStep#11 began.
    assert.equal(Math.round(c.begin[steps[1]] - c.begin[optimizer[0]]), 860311, reader);
    assert.ok(c.end[optimizer[0]] < c.end[steps[1]], reader);
    // Every step at one depth, each Optimizer.step one depth inside its own step's Python frames.
    assert.deepEqual(
      new Set(steps.map((i) => c.depth[i])).size,
      1,
      `${reader}: steps at depths ${steps.map((i) => c.depth[i])}`,
    );
    assert.equal(new Set(optimizer.slice(0, -1).map((i) => c.depth[i])).size, 1, reader);
    // No context names two steps: a synchronizing .item() is in one step's range.
    const contexts = [...Array(c.count).keys()].map((i) => (c.context[i] ? str(t, c.context[i]) : ''));
    assert.deepEqual(
      contexts.filter((x) => (x.match(/ProfilerStep#/g) ?? []).length > 1),
      [],
      reader,
    );
    const itemSyncs = [...Array(c.count).keys()].filter(
      (i) =>
        str(t, c.name[i]) === 'cudaStreamSynchronize' && contexts[i].endsWith('aten::item > aten::_local_scalar_dense'),
    );
    assert.equal(itemSyncs.length, 10, reader);
    assert.equal(contexts[itemSyncs[0]], 'ProfilerStep#10 > aten::item > aten::_local_scalar_dense', reader);
  }
});
