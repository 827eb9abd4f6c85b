// A loop that logs every N steps repeats its calls only every N steps (core/whatif/optimizer-steps.ts):
// where each repeat holds N steps of an optimizer, the recorded window is split into them,
// so that "per iteration" is per training step. Captures of test/gpu/python/programs (H200).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordedWindow } from '../../core/overview/window';
import { optimizerSites } from '../../core/whatif/optimizer-steps';
import { TraceBuilder, callSite, type Trace } from '../../core/trace/model';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const capture = (name: string) => loadTraceFile(repoPath(`test/fixtures/python/${name}.capture.syncscope.json.gz`));

/** Per span of the window: the lines of the runs of optimizer calls that begin in it. */
function runsPerSpan(t: Trace): string[][] {
  const rw = recordedWindow(t);
  const inStep = optimizerSites(t)!;
  return rw.spans.map((s) => {
    const lines: string[] = [];
    let inside = false;
    for (let i = 0; i < t.calls.count; i++) {
      if (t.calls.lane[i] !== rw.thread || t.calls.site[i] <= 0) continue;
      const now = inStep[t.calls.site[i] - 1];
      if (now && !inside && t.calls.begin[i] >= s.beginNs && t.calls.begin[i] < s.endNs)
        lines.push(String(callSite(t, i)!.frame.line));
      inside = now;
    }
    return lines;
  });
}

test('amp_scaler prints every 4 steps: its loop of 4 steps is split into steps, each with one scaler.step()', async () => {
  const t = await capture('amp_scaler');
  const rw = recordedWindow(t);
  // Read by hand: the calls repeat every 4 of the 12 steps, from step 1 (after the first print) to
  // step 8; split at each scaler.step() (line 33), the first part of the first repeat, which the
  // loop found from inside a step, is left out: 7 whole steps.
  assert.equal(
    rw.summary.text,
    '7 iterations, iteration 1 to iteration 7, from a run of calls that repeats every 4 training steps, split at each (by the optimizer steps in its Python stacks)',
  );
  assert.deepEqual(runsPerSpan(t), [['33'], ['33'], ['33'], ['33'], ['33'], ['33'], ['33']]);
});

test('time_backward prints every 10 steps: 20 steps of the 30, each with one opt.step()', async () => {
  const t = await capture('time_backward');
  const runs = runsPerSpan(t);
  assert.equal(runs.length, 20);
  for (const r of runs) assert.deepEqual(r, ['24']);
});

test('a GAN steps two optimizers each iteration, from two lines: each piece holds one step of each', async () => {
  const t = await capture('gan_step');
  const rw = recordedWindow(t);
  // Read by hand: it prints every 10 iterations; opt_d steps at line 28, then opt_g at line 33 while
  // the discriminator's loss is under 5, which it is throughout. The loop repeats every 10
  // iterations, 3 times; both lines step 10 times a repeat, and it is split after one of them, the
  // part before the first split left out: each piece holds one step of each.
  assert.equal(
    rw.summary.text,
    '29 iterations, iteration 1 to iteration 29, from a run of calls that repeats every 10 training steps, split at each (by the optimizer steps in its Python stacks)',
  );
  for (const r of runsPerSpan(t)) assert.deepEqual(r.sort(), ['28', '33']);
});

/**
 * A WGAN's loop, built: per training step its critic steps twice (line 20) and its generator once
 * (line 40), and every third step it prints (a copy back and a synchronize, line 50). The calls
 * repeat every 3 steps.
 */
function wganTrace(steps: number): Trace {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const at = (line: number) => ({ file: '/p/wgan.py', line, function: '<module>' });
  const optim = { file: '/venv/lib/python3.12/site-packages/torch/optim/optimizer.py', line: 485, function: 'wrapper' };
  b.sites.push(
    { frame: at(10), precision: 'line', stack: [at(10)] },
    { frame: at(20), precision: 'line', stack: [optim, at(20)] },
    { frame: at(30), precision: 'line', stack: [at(30)] },
    { frame: at(40), precision: 'line', stack: [optim, at(40)] },
    { frame: at(50), precision: 'line', stack: [at(50)] },
  );
  let now = 0;
  const launch = (name: string, site: number) => {
    const c = b.call({
      lane: host,
      kind: 'launch',
      begin: now,
      end: now + 5_000,
      stream: s,
      name: 'cudaLaunchKernel',
      site,
    });
    b.op({ lane: s, kind: 'kernel', name, start: now + 6_000, end: now + 50_000, call: c });
    now += 60_000;
  };
  for (let step = 0; step < steps; step++) {
    for (let critic = 0; critic < 2; critic++) {
      launch('critic_forward', 0);
      launch('critic_adam', 1);
    }
    launch('generator_forward', 2);
    launch('generator_adam', 3);
    if (step % 3 === 0) {
      b.call({ lane: host, kind: 'memcpy', begin: now, end: now + 5_000, stream: s, name: 'cudaMemcpyAsync', site: 4 });
      b.call({ lane: host, kind: 'streamSync', begin: now + 5_000, end: now + 20_000, stream: s, site: 4 });
      now += 30_000;
    }
  }
  return b.finish({ source: 'capture', clock: 'host', alignmentErrorNs: 0 });
}

test("a WGAN's critic steps twice for each generator step: the generator's step is the training step", () => {
  const t = wganTrace(12);
  const rw = recordedWindow(t);
  // The calls repeat every 3 steps; the generator steps 3 times a repeat, the critic 6: each piece
  // is one training step, with both critic steps and the generator's.
  assert.match(rw.summary.text, /repeats every 3 training steps, split at each/);
  const runs = runsPerSpan(t);
  assert.ok(runs.length >= 8, `${runs.length} steps`);
  for (const r of runs) assert.deepEqual(r.sort(), ['20', '20', '40']);
});
