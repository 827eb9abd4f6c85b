// A count read's fix keeps the shape fixed, so the fixed program runs no count (core/whatif/count-read.ts):
// the what-if takes out the count op's own kernels next to the read with the host work between them.
// amp_masked_tokens' capture (test/fixtures/whatif-truth-unseen, H100), read by hand: each step reads
// a count three times, twice at line 58 (`logits[real]`, `targets[real]`) and once in the backward
// pass, each as nonzero does: DeviceReduceKernel and DeviceReduceSingleTileKernel, a 4 B copy to
// the host and cudaStreamSynchronize, then DeviceCompactInitKernel, DeviceSelectSweepKernel and
// write_indices; then index_elementwise_kernel gathers the selected rows (in the backward pass, an
// elementwise kernel follows).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze } from '../../core/analyze';
import { h200 } from '../../core/simulate/profile';
import type { Trace } from '../../core/trace/model';
import { dropCountKernels } from '../../core/whatif/count-read';
import type { GeneratedStep, Threads } from '../../core/whatif/from-trace';
import { whatIf } from '../../core/whatif/fixes';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const KERNELS = [
  'at::native::elementwise_kernel<128, 4>',
  'cub::detail::reduce::DeviceReduceKernel<policy_hub>',
  'cub::detail::reduce::DeviceReduceSingleTileKernel<policy_hub>',
  'cub::detail::scan::DeviceCompactInitKernel<ScanTileState<int, true>>',
  'cub::detail::select::DeviceSelectSweepKernel<policy_hub>',
  'at::native::{anonymous}::write_indices<long>',
  'at::native::index_elementwise_kernel<128, 4>',
];
const t = { strings: KERNELS, ops: { name: KERNELS.map((_, k) => k) } } as unknown as Trace;
const launch = (op: number): GeneratedStep => ({ step: { launch: `k${op}` }, call: 100 + op, op });
const host = (ns: number, partOf?: number): GeneratedStep => ({
  step: { hostWork: { ns } },
  call: -1,
  ...(partOf !== undefined && { partOf }),
});
const isSync = (s: GeneratedStep) => 'streamSync' in s.step;

test("the count's kernels around the read go with the host work between them; the ops beside it and the host work at either end stay", () => {
  const steps: GeneratedStep[] = [
    launch(0),
    host(11),
    launch(1),
    host(12),
    launch(2),
    host(13),
    { step: { copy: 'd_count', to: 'h_count' }, call: 7 },
    { step: { streamSync: 'default' }, call: 8 },
    host(14, 8),
    launch(3),
    host(15),
    launch(4),
    launch(5),
    host(16),
    launch(6),
  ];
  const th: Threads = new Map([['main', steps]]);
  assert.equal(dropCountKernels(th, new Set([7, 8]), isSync, t), 5);
  assert.deepEqual(
    th.get('main')!.map((s) => (s.op !== undefined ? KERNELS[s.op].replace(/<.*$/, '') : Object.keys(s.step)[0])),
    [
      'at::native::elementwise_kernel',
      'hostWork',
      'copy',
      'streamSync',
      'hostWork',
      'hostWork',
      'at::native::index_elementwise_kernel',
    ],
  );
  // What stays: the host work before the count's first kernel, the synchronize's return (it moves
  // with the synchronize), and the host work after the count's last kernel.
  assert.deepEqual(
    th
      .get('main')!
      .filter((s) => 'hostWork' in s.step)
      .map((s) => (s.step.hostWork as { ns: number }).ns),
    [11, 14, 16],
  );
});

test('a read with no count kernel beside it (.item() of a sum) keeps every step, the host work between its copy and synchronize too', () => {
  const steps = [
    launch(0),
    host(10),
    { step: { copy: 'd', to: 'h' }, call: 7 },
    host(12),
    { step: { streamSync: 'default' }, call: 8 },
    launch(6),
  ];
  const th: Threads = new Map([['main', steps]]);
  assert.equal(dropCountKernels(th, new Set([7, 8]), isSync, t), 0);
  assert.deepEqual(th.get('main'), steps);
});

test("amp_masked_tokens' capture: fixing its count reads takes out five kernels for each of the three reads of each of the window's 59 steps", async () => {
  const trace = await loadTraceFile(
    repoPath('test/fixtures/whatif-truth-unseen/amp_masked_tokens.capture.syncscope.json.gz'),
  );
  const a = analyze(trace);
  const ids = a.findings.flatMap((f, k) => (/amp_masked_tokens\.py:(58|67) in/.test(f.message) ? [`F${k + 1}`] : []));
  assert.equal(ids.length, 2);
  const [fix] = whatIf(trace, h200, [ids.join('+')], undefined, a);
  assert.match(
    fix.edit,
    /^move 177 synchronize steps to the thread's next host wait .*; and take out the count's own 885 kernel launches /,
  );
});
