// A folder is replaced as a whole: the swap of a staged folder into place, the folders it refuses
// to replace, and the removal of what killed writes left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swapFolderSync } from '../../node/atomic-folder';
import { WriteError } from '../../node/atomic-write';
import { removeStaleTemps, tempOwner } from '../../node/temp-files';
import { saveTraceFile } from '../../node/trace-file';
import { TRACE_PARQUET } from '../../node/trace-parquet';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { repoPath } from '../helpers/paths';

const freshDir = () => mkdtempSync(join(tmpdir(), 'syncscope-folder-'));

/** A folder holding one file per entry of `files` (name: text). */
function folder(path: string, files: Record<string, string>): string {
  mkdirSync(path, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return path;
}

const contents = (path: string): Record<string, string> =>
  Object.fromEntries(readdirSync(path).map((name) => [name, readFileSync(join(path, name), 'utf8')]));

test('the staged folder takes the name; an old folder there is moved aside whole', () => {
  const dir = freshDir();
  const target = join(dir, 't.parquet');
  const asides: string[] = [];
  swapFolderSync(folder(join(dir, 'new1'), { 'a.parquet': 'n1' }), target, () => join(dir, 'aside0'), asides);
  assert.deepEqual(contents(target), { 'a.parquet': 'n1' });
  assert.deepEqual(asides, [], 'nothing was there to move aside');

  folder(join(dir, 'new2'), { 'a.parquet': 'n2', 'b.parquet': 'n2' });
  swapFolderSync(join(dir, 'new2'), target, () => join(dir, 'aside1'), asides);
  assert.deepEqual(contents(target), { 'a.parquet': 'n2', 'b.parquet': 'n2' });
  assert.deepEqual(asides, [join(dir, 'aside1')]);
  assert.deepEqual(contents(join(dir, 'aside1')), { 'a.parquet': 'n1' });
  assert.deepEqual(readdirSync(dir).sort(), ['aside1', 't.parquet']);
});

test('when the staged folder cannot take the name, the old folder is put back', () => {
  const dir = freshDir();
  const target = folder(join(dir, 't.parquet'), { 'a.parquet': 'old' });
  const asides: string[] = [];
  assert.throws(
    () => swapFolderSync(join(dir, 'gone'), target, () => join(dir, 'aside'), asides),
    (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
  );
  assert.deepEqual(contents(target), { 'a.parquet': 'old' });
  assert.deepEqual(asides, []);
  assert.deepEqual(readdirSync(dir), ['t.parquet']);
});

test("a folder that takes the name between the two renames is moved aside too, and the last writer's stays", () => {
  const dir = freshDir();
  const target = folder(join(dir, 't.parquet'), { 'a.parquet': 'other writer' });
  const staged = folder(join(dir, 'staged'), { 'a.parquet': 'ours' });
  // The first aside lies in a folder that does not exist, so the first rename finds nothing to
  // move, as when another writer's folder arrives just after it: the second rename meets that folder.
  const paths = [join(dir, 'missing', 'aside0'), join(dir, 'aside1')];
  const asides: string[] = [];
  swapFolderSync(staged, target, () => paths.shift()!, asides);
  assert.deepEqual(contents(target), { 'a.parquet': 'ours' });
  assert.deepEqual(asides, [join(dir, 'aside1')]);
  assert.deepEqual(contents(join(dir, 'aside1')), { 'a.parquet': 'other writer' });
});

test('a writer that loses every race gives up with the name holding a whole folder', () => {
  const dir = freshDir();
  const target = folder(join(dir, 't.parquet'), { 'a.parquet': 'other writer' });
  const staged = folder(join(dir, 'staged'), { 'a.parquet': 'ours' });
  const asides: string[] = [];
  assert.throws(
    () => swapFolderSync(staged, target, () => join(dir, 'missing', 'aside'), asides),
    (e: unknown) => e instanceof WriteError && /t\.parquet: other writers kept replacing it/.test(e.message),
  );
  assert.deepEqual(contents(target), { 'a.parquet': 'other writer' });
  assert.deepEqual(contents(staged), { 'a.parquet': 'ours' });
});

const file = 'pipeline-buggy.scenario.json';
const trace = simulate(compileScenario(readFileSync(repoPath('examples', file), 'utf8'), file));
const TABLES = ['accesses.parquet', 'calls.parquet', 'edges.parquet', 'lanes.parquet', 'ops.parquet'];

test('a Parquet folder holding other files, or a file of that name, is refused and left as it was', async () => {
  const dir = freshDir();
  const mixed = folder(join(dir, 'mixed.parquet'), { 'calls.parquet': 'old', 'notes.txt': 'mine' });
  await assert.rejects(
    saveTraceFile(trace, mixed),
    new RegExp(
      `^WriteError: ${mixed}: holds notes\\.txt besides a trace's Parquet tables; the folder is replaced as a whole, ` +
        'so move those out or write to another name$',
    ),
  );
  assert.deepEqual(contents(mixed), { 'calls.parquet': 'old', 'notes.txt': 'mine' });
  writeFileSync(join(dir, 'plain.parquet'), 'a single file');
  await assert.rejects(
    saveTraceFile(trace, join(dir, 'plain.parquet')),
    /plain\.parquet: is a file; this output is a folder of a trace's Parquet tables, so remove the file/,
  );
  assert.equal(readFileSync(join(dir, 'plain.parquet'), 'utf8'), 'a single file');
  assert.deepEqual(readdirSync(dir).sort(), ['mixed.parquet', 'plain.parquet']);
});

test('a Parquet folder is replaced whole: temp files an older writer left inside it go with it', async () => {
  const dir = freshDir();
  const out = folder(join(dir, 'run.parquet'), {
    'calls.parquet': 'old',
    '.calls.parquet.4242.0123456789ab.tmp': '',
  });
  await saveTraceFile(trace, out);
  assert.deepEqual(readdirSync(out).sort(), TABLES);
  assert.deepEqual(readdirSync(dir), ['run.parquet']);
});

/** The id of a process that has ended. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

test('the next write to a target removes the temporaries killed writes left there, and nothing else', async () => {
  const dir = freshDir();
  const dead = deadPid();
  const at = (name: string) => join(dir, name);
  const stale = [
    `.run.parquet.${dead}.0123456789ab.tmp`, // a folder being written
    `.run.parquet.${dead}.0123456789ac.old.tmp`, // an old folder moved aside
    `.run.syncscope.${dead}.0123456789ad.tmp`, // a file being written
    `.run.syncscope.${process.ppid}.0123456789ae.tmp`, // a live writer's, untouched for two days
  ];
  folder(at(stale[0]), { 'calls.parquet': 'half' });
  folder(at(stale[1]), { 'calls.parquet': 'old', 'ops.parquet': 'old' });
  writeFileSync(at(stale[2]), 'half');
  writeFileSync(at(stale[3]), 'half');
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  utimesSync(at(stale[3]), twoDaysAgo, twoDaysAgo);
  const kept = [
    `.run.parquet.${process.ppid}.0123456789af.tmp`, // a live writer's, in use
    `.run.parquet.${dead}.0123456789b0.tmp`, // named like ours, holding what we never write
    `.other.parquet.${dead}.0123456789b1.tmp`, // another target's
    `.run.parquet.${dead}.tmp`, // not our naming
    'run.parquet.tmp',
  ];
  folder(at(kept[0]), { 'calls.parquet': 'live' });
  folder(at(kept[1]), { 'data.csv': 'someone else' });
  for (const name of kept.slice(2)) writeFileSync(at(name), 'not ours');

  await saveTraceFile(trace, at('run.parquet'), at('run.syncscope'));
  assert.deepEqual(readdirSync(dir).sort(), [...kept, 'run.parquet', 'run.syncscope'].sort());
  assert.deepEqual(readdirSync(at('run.parquet')).sort(), TABLES);
  assert.deepEqual(contents(at(kept[1])), { 'data.csv': 'someone else' });
});

test('a temporary is ours only by its full name: target, process id, 12 hex digits, .tmp', async () => {
  const owner = tempOwner('/d/a.b.parquet');
  assert.equal(owner('.a.b.parquet.17.0123456789ab.tmp'), 17);
  assert.equal(owner('.a.b.parquet.17.0123456789ab.old.tmp'), 17);
  assert.equal(owner('.aXb.parquet.17.0123456789ab.tmp'), undefined);
  assert.equal(owner('.a.b.parquet.17.0123456789a.tmp'), undefined);
  assert.equal(owner('.a.b.parquet.x.0123456789ab.tmp'), undefined);
  assert.equal(owner('a.b.parquet.17.0123456789ab.tmp'), undefined);
  assert.equal(owner('.a.b.parquet.17.0123456789ab.tmp.bak'), undefined);
  // A directory that does not exist has nothing to remove.
  assert.deepEqual(await removeStaleTemps(join(freshDir(), 'nowhere', 'x'), TRACE_PARQUET.isOwnEntry), []);
});
