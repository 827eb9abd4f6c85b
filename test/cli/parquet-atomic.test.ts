// Kill and concurrency tests of the Parquet folder: a killed or racing writer leaves all the tables
// of the old trace or all those of the new one, every table from one write, and nothing inside the
// folder but the tables. The killed command is `import x.syncscope --out x.parquet`, which reads the
// saved trace in one go, so that nearly all of its time is the Parquet write the kills aim at.
// SYNCSCOPE_PARQUET_KILL_OPS sets the new trace's size (e.g. 1000000; the default keeps the test short).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';
import { seededRandom } from '../helpers/random';

const OPS = Number(process.env.SYNCSCOPE_PARQUET_KILL_OPS) || 50_000;
const OLD_OPS = 1_000;
const KILLS = 20;
const TABLES = ['accesses.parquet', 'calls.parquet', 'edges.parquet', 'lanes.parquet', 'ops.parquet'];

/** `name.syncscope`: a scenario of `ops` launches in a repeat loop, simulated and saved. */
async function savedTrace(dir: string, name: string, ops: number): Promise<string> {
  const scenario = join(dir, `${name}.scenario.json`);
  const steps = [{ repeat: ops, steps: [{ launch: name, us: 1 }] }, { deviceSync: true }];
  writeFileSync(scenario, JSON.stringify({ name, steps }));
  const out = join(dir, `${name}.syncscope`);
  const r = await runCli(['simulate', scenario, '--out', out], dir);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function startCli(args: string[], cwd: string) {
  const child = spawn(process.execPath, [repoPath('dist/cli.js'), ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

interface Folder {
  /** Every write id found: each table's footer and each row's `writeId`. */
  writeIds: Set<string>;
  /** Rows per table, from each footer. */
  rows: Record<string, number>;
}

/** Reads a Parquet trace folder, checking that it holds the five tables and nothing else. */
async function readFolder(path: string): Promise<Folder> {
  assert.deepEqual(readdirSync(path).sort(), TABLES, `${path} holds the tables and nothing else`);
  const writeIds = new Set<string>();
  const rows: Record<string, number> = {};
  for (const table of TABLES) {
    const bytes = readFileSync(join(path, table));
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const meta = parquetMetadata(file);
    rows[table] = Number(meta.num_rows);
    writeIds.add(meta.key_value_metadata?.find((e) => e.key === 'syncscope.writeId')?.value ?? 'none');
    for (const row of await parquetReadObjects({ file, columns: ['writeId'] })) writeIds.add(String(row.writeId));
  }
  return { writeIds, rows };
}

/** Temporaries beside the folder `name` in `dir`. */
const tempsOf = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`.${name}.`));

test(`${KILLS} kills of a Parquet write, SIGKILL and SIGINT, each leave the whole old trace or the whole new one`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-pq-kill-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const newTrace = await savedTrace(dir, 'new', OPS);
  const oldTrace = await savedTrace(dir, 'old', OLD_OPS);
  assert.equal((await runCli(['import', oldTrace, '--out', join(dir, 'old.parquet')], dir)).code, 0);
  const old = await readFolder(join(dir, 'old.parquet'));
  assert.equal(old.writeIds.size, 1);
  assert.equal(old.rows['ops.parquet'], OLD_OPS);

  // An uncut write: the whole new trace, and how long a write takes.
  const started = Date.now();
  const whole = await startCli(['import', newTrace, '--out', join(dir, 'whole.parquet')], dir).exit;
  const duration = Date.now() - started;
  assert.equal(whole.code, 0, whole.stderr);
  const fresh = await readFolder(join(dir, 'whole.parquet'));
  assert.equal(fresh.writeIds.size, 1);
  assert.equal(fresh.rows['ops.parquet'], OPS);

  const random = seededRandom(43);
  const outcomes: string[] = [];
  const leftovers: string[] = [];
  for (let k = 0; k < KILLS; k++) {
    const signal: NodeJS.Signals = k % 2 ? 'SIGINT' : 'SIGKILL';
    const sub = join(dir, `kill${k}`);
    mkdirSync(sub);
    cpSync(join(dir, 'old.parquet'), join(sub, 'x.parquet'), { recursive: true });
    const run = startCli(['import', newTrace, '--out', 'x.parquet'], sub);
    // At a random moment of the write, and now and then just after it.
    const delay = Math.round((0.05 + 1.0 * random()) * duration);
    const timer = setTimeout(() => run.child.kill(signal), delay);
    const exit = await run.exit;
    clearTimeout(timer);
    const got = await readFolder(join(sub, 'x.parquet'));
    const what = `kill ${k}: ${signal} after ${delay} ms (${exit.signal ?? `exit ${exit.code}`})`;
    assert.equal(got.writeIds.size, 1, `${what}: one write's tables, found ${[...got.writeIds].join(', ')}`);
    const isOld = got.writeIds.has([...old.writeIds][0]);
    assert.deepEqual(got.rows, isOld ? old.rows : fresh.rows, `${what}: the whole ${isOld ? 'old' : 'new'} trace`);
    if (exit.signal === null) assert.equal(exit.code, 0, `${what}: ${exit.stderr}`);
    // SIGINT removes the temporaries; what SIGKILL leaves, the next write removes.
    if (signal === 'SIGINT') assert.deepEqual(tempsOf(sub, 'x.parquet'), [], what);
    else if (tempsOf(sub, 'x.parquet').length) leftovers.push(sub);
    outcomes.push(`${what}: ${isOld ? 'old' : 'new'}`);
  }
  for (const sub of leftovers) {
    assert.equal((await runCli(['import', oldTrace, '--out', 'x.parquet'], sub)).code, 0);
    assert.deepEqual(tempsOf(sub, 'x.parquet'), [], `${sub}: the next write removes what SIGKILL left`);
  }
  t.diagnostic(`an uncut write of ${OPS} ops took ${duration} ms`);
  for (const line of outcomes) t.diagnostic(line);
  t.diagnostic(`${leftovers.length} SIGKILLs left temporaries, removed by the next write`);
});

test('two writers of one Parquet folder leave all the tables of one of them, and no temporaries', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-pq-race-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sizes = [8_000, 12_000];
  const traces = await Promise.all(sizes.map((ops, i) => savedTrace(dir, `t${i}`, ops)));
  for (let round = 0; round < 2; round++) {
    const runs = traces.map((trace) => startCli(['import', trace, '--out', 'same.parquet'], dir));
    const exits = await Promise.all(runs.map((r) => r.exit));
    for (const e of exits) assert.equal(e.code, 0, e.stderr);
    const got = await readFolder(join(dir, 'same.parquet'));
    assert.equal(got.writeIds.size, 1, [...got.writeIds].join(', '));
    assert.ok(sizes.includes(got.rows['ops.parquet']), String(got.rows['ops.parquet']));
    assert.deepEqual(tempsOf(dir, 'same.parquet'), []);
  }
});
