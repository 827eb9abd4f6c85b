// Under an address-space limit (`ulimit -v`, as a shared machine or a container sets), a scenario
// too large for it gets a clean error that names the input, the limit and how to raise it, before
// anything large is allocated: never an abort for want of heap, never an engine message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processMemoryLimits } from '../../node/memory-limits';
import { repoPath } from '../helpers/paths';

/** 4 GiB, in the KiB that `ulimit -v` takes. */
const ULIMIT_KIB = 4_194_304;

/** Where a container or a small machine leaves less than the address space would, its limit is the one named. */
const limits = processMemoryLimits();
const skip =
  process.platform !== 'linux'
    ? 'ulimit -v is a Linux test'
    : Math.min(limits.cgroup ?? Infinity, limits.physical / 2) < 5 * 2 ** 30
      ? 'a cgroup or the machine holds less than the 4 GiB address space'
      : false;

function reportUnderUlimit(name: string, scenario: object) {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-ulimit-'));
  writeFileSync(join(dir, name), JSON.stringify(scenario, null, 1));
  const cli = repoPath('dist/cli.js');
  const r = spawnSync(
    'bash',
    ['-c', `ulimit -v ${ULIMIT_KIB} && exec "$0" "$1" report "$2"`, process.execPath, cli, name],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const launches = (stream: string) => [
  { repeat: 1_000_000, steps: ['k1', 'k2', 'k3'].map((k) => ({ launch: k, stream, us: 1, writes: [`b${stream}`] })) },
];

test('two threads of 3 * 10^6 launches: the step budget, at the repeat, under ulimit -v', { skip }, () => {
  const r = reportUnderUlimit('two.scenario.json', {
    name: 'two threads',
    streams: { a: {}, b: {} },
    buffers: { ba: { bytes: 1024 }, bb: { bytes: 1024 } },
    threads: { main: launches('a'), loader: launches('b') },
  });
  assert.equal(r.code, 2, r.stderr);
  // The second thread's repeat (line 49 of the indented file) is where the steps pass the budget.
  assert.match(
    r.stderr,
    /^syncscope report: two\.scenario\.json:49:\d+: runaway repeat: 1000000 x 3 steps make 6000000 steps in all, over the limit of \d+; that many steps of 640 bytes fill the [\d.]+ GiB left under the address-space limit \(ulimit -v 4 GiB, \d+ MiB of it mapped\); raise it with ulimit -v\n$/,
  );
});

test(
  '1,500 threads of 1,000 launches: the happens-before clocks, before they are made, under ulimit -v',
  { skip },
  () => {
    const threads = Object.fromEntries(
      Array.from({ length: 1500 }, (_, i) => [`t${i}`, [{ repeat: 1000, steps: [{ launch: 'k', us: 1 }] }]]),
    );
    const r = reportUnderUlimit('many.scenario.json', { name: 'many threads', threads });
    assert.equal(r.code, 2, r.stderr);
    // 1.5 * 10^6 calls and ops over 1,501 lanes: 1.5e6 * 640 + 3e6 * 1493 * 4 bytes.
    assert.match(
      r.stderr,
      /^syncscope report: many\.scenario\.json: the simulated trace of 1500000 calls, 0 buffer accesses and 1501 lanes \(host threads and streams\), with its analysis, would take about 17\.6 GiB, more than the [\d.]+ GiB left under the address-space limit \(ulimit -v 4 GiB, \d+ MiB of it mapped\); raise it with ulimit -v, or use fewer steps, buffer accesses, host threads or streams\n$/,
    );
  },
);
