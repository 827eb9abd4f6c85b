// CUPTI captures of Python programs written the way training loops are (test/gpu/python/programs),
// recorded on an H200 (test/fixtures/python/RECORDED-WITH.txt) and pinned. The lines are read by
// hand from the programs: each host wait over 50 us is at the user's line that waited, and the op
// that released it at the user's line that launched it, with no frame of the launcher or the
// interpreter's start-up anywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';

interface Site {
  file: string;
  line: number;
  function: string;
  precision: string;
}
interface Wait {
  blockedNs: number;
  source?: Site;
  stack?: { file: string }[];
  context?: string;
  releasedBy: { name: string; how: string; source?: Site }[] | null;
}

const report = async (name: string): Promise<{ waits: Wait[] }> => {
  const r = await runCli(['report', `test/fixtures/python/${name}.capture.syncscope.json.gz`, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const at = (s: Site | undefined) => (s ? `${s.file.split('/').pop()}:${s.line} ${s.precision}` : 'none');

test('amp_scaler: end.synchronize() waits for the kernel scaler.update() launched; scaler.step waits inside the library, at its line', async () => {
  const { waits } = await report('amp_scaler');
  const long = waits.filter((w) => w.blockedNs > 50_000);
  assert.equal(long.length, 12);
  // Line 36 is `end.synchronize()`: the timing event recorded after scaler.update() at line 34, whose
  // amp_update_scale kernel is the last op before the event's record.
  const timing = long.filter((w) => at(w.source) === 'amp_scaler.py:36 line');
  assert.equal(timing.length, 11);
  for (const w of timing) {
    assert.equal(w.releasedBy?.length, 1);
    assert.equal(w.releasedBy![0].how, 'exact');
    assert.match(w.releasedBy![0].name, /amp_update_scale_cuda_kernel/);
    assert.equal(at(w.releasedBy![0].source), 'amp_scaler.py:34 line');
  }
  // Line 33 is `scaler.step(opt)`: GradScaler reads found_inf back inside its own code (a 4-byte
  // copy and a stream sync); the wait is placed at the user's line that called it, the library's
  // frames kept in its context.
  const [step] = long.filter((w) => at(w.source) === 'amp_scaler.py:33 line');
  assert.match(step.context!, /^GradScaler\.step > GradScaler\._maybe_opt_step/);
  assert.equal(at(step.releasedBy![0].source), 'amp_scaler.py:33 line');
  // Every wait, long or not, is at a line of the script, and no stack holds the launcher's frames.
  for (const w of waits) {
    assert.equal(w.source?.precision, 'line');
    assert.match(w.source!.file, /amp_scaler\.py$/);
    for (const f of w.stack ?? []) assert.doesNotMatch(f.file, /syncscope_profile|runpy/);
  }
});
