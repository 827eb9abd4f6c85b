// CUPTI captures and torch.profiler profiles of Python programs written the way training loops are
// (test/gpu/python/programs), recorded on an H200 and an H100 (test/fixtures/python/RECORDED-WITH.txt) and
// pinned. The lines are read by hand from the programs: each host wait is at the user's line that
// waited, and the op that released it at the user's line that launched it, with no frame of the
// launcher or the interpreter's start-up anywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteLines } from '../../core/analyze/site-lines';
import { loadTraceFile } from '../../node/trace-file';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

interface Site {
  file: string;
  line: number;
  function: string;
  precision: string;
  deduced?: string;
}
interface Wait {
  blockedNs: number;
  source?: Site;
  stack?: { file: string }[];
  context?: string;
  releasedBy: { name: string; how: string; source?: Site }[] | null;
  noSource?: string;
}

const fixture = (name: string, kind: 'capture' | 'profile') =>
  `test/fixtures/python/${name}.${kind === 'capture' ? 'capture.syncscope.json.gz' : 'profile.json.gz'}`;
const report = async (name: string, kind: 'capture' | 'profile' = 'capture'): Promise<{ waits: Wait[] }> => {
  const r = await runCli(['report', fixture(name, kind), '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

/** Waits by the line they are at, and their releasing ops by the line that launched them: `{ "21": 10 }`. */
function byLine(waits: Wait[]): { waits: Record<string, number>; launches: Record<string, number> } {
  const out = { waits: {} as Record<string, number>, launches: {} as Record<string, number> };
  const add = (m: Record<string, number>, s: Site | undefined) => {
    const k = s ? `${s.line}${s.precision === 'line' ? '' : ' ' + s.precision}` : 'none';
    m[k] = (m[k] ?? 0) + 1;
  };
  for (const w of waits) {
    add(out.waits, w.source);
    for (const by of w.releasedBy ?? []) add(out.launches, by.source);
  }
  return out;
}
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

/**
 * Each program's waits by line and releasers by launch line, read by hand from the programs: every
 * wait of a capture, and every wait of a profile (its recorded window: five optimizer steps after
 * two of warm-up, or the whole run of a script with no optimizer). A profile's last wait is the
 * profiler's own device sync as it stops ("none": made inside the launcher's step hook, or after the
 * script's end), which no user line made.
 */
const EXPECTED: Record<string, { capture?: ReturnType<typeof byLine>; profile?: ReturnType<typeof byLine> }> = {
  // 10 batches: `scores[scores.abs() > 0.9]` (21) and `torch.nonzero(...)` (22) each read a count
  // back, a copy their own line launched.
  mask_nonzero: {
    capture: { waits: { 21: 10, 22: 10 }, launches: { 21: 10, 22: 10 } },
    profile: { waits: { 21: 10, 22: 10, none: 1 }, launches: { 21: 10, 22: 10 } },
  },
  // The loader thread's `ready.synchronize()` (22) six times, two of them behind `batch * 2 - 1`
  // (19); the model's copies to the GPU (27), and `loss.item()` (36) on the main thread. The
  // profile's three steps hold two of the loader thread's waits, at their line too.
  loader_thread: {
    capture: { waits: { 22: 6, 27: 3, 36: 1 }, launches: { 19: 2, 27: 2, 36: 1 } },
    profile: { waits: { 22: 2, 36: 1, none: 1 }, launches: { 36: 1 } },
  },
  // to_host() (11) copies to the host twelve times (8 train steps, 4 eval steps): a copy and a sync each.
  helper_two_sites: {
    capture: { waits: { 11: 24 }, launches: { 11: 12 } },
    profile: { waits: { 11: 24, none: 1 }, launches: { 11: 12 } },
  },
  // 16 steps of 8 rows: each row's .tolist() inside the comprehension (13) is a copy and a sync.
  tolist_comprehension: {
    capture: { waits: { 13: 256 }, launches: { 13: 128 } },
    profile: { waits: { 13: 256, none: 1 }, launches: { 13: 128 } },
  },
  // 64 tokens: `embed[tok]` indexes with a GPU scalar (12) and `tok.item()` (22) reads it, each a
  // sync; `torch.tensor(1, device=device)` (18) copies once.
  decode_tokens: {
    capture: { waits: { 12: 64, 18: 2, 22: 64 }, launches: { 12: 64, 18: 1, 22: 64 } },
    profile: { waits: { 12: 64, 18: 1, 22: 64, none: 1 }, launches: { 12: 49, 22: 63 } },
  },
  // The model's four parameters copied by `.to(device)` (11); `loss.item()` every fourth of 16
  // batches, two epochs (21). The workers are other processes: nothing of theirs waits here.
  dataloader_workers: {
    capture: { waits: { 11: 4, 21: 8 }, launches: { 11: 4, 21: 3 } },
    profile: { waits: { 21: 1, none: 1 }, launches: { 21: 1 } },
  },
  // `block(x)` (19) compiles and warms up; inside the compiled block CUDA graph trees and Triton's
  // autotuning synchronize, at the line that called the compiled function (the frame TorchDynamo
  // runs begins at the decorator, line 10, where no line ran); `norm.item()` (20) in each of 12 steps.
  compiled_graphs: { capture: { waits: { 19: 64, 20: 12 }, launches: { 19: 28, 20: 12 } } },
  // The model's copies (19), scaler.step (33), end.synchronize() (36, behind scaler.update()'s
  // kernel at 34), loss.item() every fourth step (38).
  amp_scaler: {
    capture: { waits: { 19: 6, 33: 12, 36: 12, 38: 3 }, launches: { 19: 6, 33: 12, 34: 11, 38: 3 } },
    profile: { waits: { 33: 5, 36: 5, 38: 1, none: 1 }, launches: { 33: 1 } },
  },
  // `.to(device)` (16) copies the model's 16 tensors; `torch.isfinite(loss)` in an `if` (36) reads a
  // bool every batch, 16 an epoch; the print (44) reads `loss.item()` and formats `norm` twice an
  // epoch; evaluate()'s `.sum().item()` (27) four times an epoch. Two epochs.
  accum_eval: {
    capture: { waits: { 16: 17, 27: 8, 36: 32, 44: 8 }, launches: { 16: 16, 27: 8, 36: 32, 44: 7 } },
    profile: { waits: { 27: 4, 36: 20, 44: 4, none: 1 }, launches: { 27: 2, 36: 8, 44: 2 } },
  },
  // The decoder's nine parameters copied (38); `finished.all()` in an `if` (50) each of 48 tokens;
  // the final `.tolist()` (53). `sorted_logits[drop] = -inf` (34) does not wait: torch fills a
  // boolean mask with a scalar on the GPU.
  sample_topp: {
    capture: { waits: { 38: 9, 50: 48, 53: 2 }, launches: { 38: 8, 50: 47, 53: 1 } },
    profile: { waits: { 38: 10, 50: 48, 53: 2, none: 1 }, launches: { 38: 9, 50: 48, 53: 1 } },
  },
  // `model.cuda()` (11) copies six tensors; `torch.cuda.synchronize()` (22) after `loss.backward()`
  // (21) in each of 30 iterations waits for the last backward kernel, which autograd's engine thread
  // launched while line 21 ran backward() (a deduction, labelled); `loss.item()` (26) every tenth.
  time_backward: {
    capture: { waits: { 11: 6, 22: 30, 26: 3 }, launches: { 11: 6, 21: 30, 26: 3 } },
    profile: { waits: { 22: 5, none: 1 }, launches: { 21: 5 } },
  },
  // `.to(dev)` (15) copies six tensors; each of 8 epochs compares `val_loss < best` in an `if` (35),
  // pulls three tensors to numpy with `.cpu()` (39: a copy and a sync each) and prints
  // `float(val_loss)` (40). The profile's five optimizer steps lie inside an epoch, where nothing waits.
  early_stopping: {
    capture: { waits: { 15: 6, 35: 8, 39: 48, 40: 8 }, launches: { 15: 6, 35: 6, 39: 24, 40: 8 } },
    profile: { waits: { none: 1 }, launches: {} },
  },
  // The model's seven tensors (37); per step of 25: `int(lengths.max())` (41); in forward(),
  // pack_padded_sequence (20: its sorted indices go to the GPU) and its `lengths.cpu()` (21), and
  // pad_packed_sequence (24), each a copy and a sync; `torch.unique(tags[mask])` (49: the mask's
  // count, then unique's); `loss.item()` every fifth step (51). The profile's five steps hold them;
  // the capture (3.6 MB: the GRU's kernels of every step) is not pinned.
  ragged_batches: {
    profile: {
      waits: { 20: 5, 21: 10, 24: 10, 41: 5, 49: 10, 51: 1, none: 1 },
      launches: { 21: 5, 24: 5, 41: 4, 49: 6 },
    },
  },
  // The two models' `.to(dev)` (12: five tensors, 13: four); `if d_loss.item() < 5.0` (29) each of
  // 40 iterations; every tenth, `stop.synchronize()` (38) and the print's `d_loss.item()` (39).
  // The profile's five optimizer steps (two per iteration) hold two of line 29's.
  gan_step: {
    capture: { waits: { 12: 5, 13: 4, 29: 40, 38: 4, 39: 4 }, launches: { 12: 4, 13: 4, 29: 35, 39: 3 } },
    profile: { waits: { 29: 2, none: 1 }, launches: {} },
  },
  // `if done.all()` (35) each of 64 tokens in 6 batches; the comprehension's `.any()` and
  // `.nonzero()[0].item()` (44) per row; the model's seven tensors (40). Its profile (2.5 MB) is not
  // pinned.
  greedy_decode: {
    capture: { waits: { 35: 384, 40: 7, 44: 234 }, launches: { 35: 324, 40: 5, 44: 230 } },
  },
};

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name}: every wait at the line that waited, and its releaser at the line that launched it`, async () => {
    const waits: Wait[] = [];
    if (expected.capture) {
      const captured = await report(name);
      assert.deepEqual(byLine(captured.waits), expected.capture, 'capture');
      waits.push(...captured.waits);
    }
    if (expected.profile) {
      const profiled = await report(name, 'profile');
      assert.deepEqual(byLine(profiled.waits), expected.profile, 'profile');
      // The profiler's stop says why it has no line.
      const stop = profiled.waits.filter((w) => !w.source);
      assert.match(stop[0].noSource!, /the profiler's own stop/);
      waits.push(...profiled.waits);
    }
    for (const w of waits) for (const f of w.stack ?? []) assert.doesNotMatch(f.file, /syncscope_profile|runpy/);
  });
}

test("helper_two_sites: the helper's waits go to each line that called it, train_step (16) and eval_step (24)", async () => {
  for (const kind of ['capture', 'profile'] as const) {
    const t = await loadTraceFile(repoPath(fixture('helper_two_sites', kind)));
    const callers = siteLines(t)
      .filter((l) => l.via)
      .map((l) => [l.line, l.via!.line, l.count]);
    // Capture: a copy and a stream sync per call; profile: the same, 8 train and 4 eval calls.
    assert.deepEqual(
      callers,
      [
        [16, 11, 16],
        [24, 11, 8],
      ],
      kind,
    );
  }
});

test("time_backward: the synchronize after loss.backward() waits for a kernel of autograd's engine thread, deduced at the backward() line", async () => {
  for (const kind of ['capture', 'profile'] as const) {
    const { waits } = await report('time_backward', kind);
    const syncs = waits.filter((w) => w.source?.line === 22);
    assert.equal(syncs.length, kind === 'capture' ? 30 : 5, kind);
    for (const w of syncs) {
      assert.equal(w.releasedBy?.length, 1, kind);
      const by = w.releasedBy![0];
      assert.equal(by.how, 'exact', kind);
      assert.equal(at(by.source), 'time_backward.py:21 line', kind);
      assert.equal(by.source!.deduced, "made by autograd's engine thread while this line ran backward()", kind);
    }
  }
});
