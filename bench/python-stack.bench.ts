// The capture library's Python stack reader on its own, without CUDA (native/capture/check/
// python_stack_check.cc through test/runner/python-stack/cost.py): the time a call's stack adds,
// stacks on against off in alternate batches of one process, at several depths, with every CPython
// from 3.10 to 3.13 the machine has; and what a stack met for the first time costs (its lines and
// names read, interned under the lock). The GPU's own figure, per launch and per synchronize of a
// real CUDA call, is bench/results/capture.md's. Writes Markdown to stdout and $SYNCSCOPE_BENCH_OUT.
import { execSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { captureCheck, captureCheckSkip } from '../test/helpers/capture-check';
import { repoPath } from '../test/helpers/paths';
import { interpreters } from '../test/helpers/pythons';

const ROUNDS = 300;
const DEPTHS = [4, 24, 64];

function main(): void {
  const skip = captureCheckSkip('python_stack_check');
  if (skip) {
    console.log(`skipped: ${skip}`);
    return;
  }
  const lib = captureCheck('python_stack_check');
  const rows: string[] = [];
  for (const [minor, python] of interpreters()) {
    if (minor < 10) continue;
    for (const depth of DEPTHS) {
      const r = spawnSync(python, [repoPath('test/runner/python-stack/cost.py'), lib, String(ROUNDS), String(depth)], {
        encoding: 'utf8',
      });
      const m = /on_ns ([\d.]+) off_ns ([\d.]+) added_ns (-?[\d.]+) first_ns (\d+)/.exec(r.stdout);
      if (r.status !== 0 || !m) throw new Error(`cost.py with ${python}: ${r.stdout}${r.stderr}`);
      const [on, off, added, first] = m.slice(1).map(Number);
      rows.push(
        `| 3.${minor} | ${depth} | ${off.toFixed(0)} | ${on.toFixed(0)} | ${added.toFixed(0)} | ${(first / 1000).toFixed(1)} |`,
      );
    }
  }
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const text = [
    '# Python stack reader',
    '',
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    `- commit: ${commit}`,
    `- command: npm run bench:python-stack (${ROUNDS} rounds of 1000 reads per state, stacks on and off alternated within one process; medians)`,
    '',
    'Each read is a ctypes call that releases the GIL, as torch releases it around CUDA calls, made the given number of Python frames deep. "Off" is the call with stacks switched off (one branch); "added" is the median over rounds of on less off, which is what a CUDA call pays for its stack once that stack has been met. "First" is a stack met for the first time: its lines, files and names read and interned under the lock, once per distinct stack.',
    '',
    '| CPython | frames | off, ns/call | on, ns/call | added, ns/call | first, µs |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Target (on the GPU machine, per real CUDA call): at most 1 µs added per launch and 3 µs per synchronize.',
    '',
  ].join('\n');
  console.log(text);
  if (process.env.SYNCSCOPE_BENCH_OUT) writeFileSync(process.env.SYNCSCOPE_BENCH_OUT, text);
}

main();
