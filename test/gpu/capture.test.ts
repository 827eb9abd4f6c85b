// Capturing real programs on the GPU: a CUDA C++ program that exercises S1..S20 and a PyTorch script
// doing what the seed documents do. Each capture must name the same releasing ops and have the same
// happens-before edges as its equivalent scenario in the simulator, with no causality violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulate } from '../../core/simulate';
import { callKind, str, type Trace } from '../../core/trace/model';
import { compile } from './gpu';
import { assertCaptureLibrary, buildProgram, capture, noCaptureCpp, noCaptureTorch, programPath } from './capture/run';
import { rulesScenario, seedScenario } from './capture/scenarios';
import { causalityViolations, COMPARED, structureOf, type Structure } from './capture/structure';

/** Waits the simulator says were clearly pending (as test/gpu/examples.test.ts compares them). */
const PENDING_NS = 20_000;

function compare(t: { diagnostic(m: string): void }, captured: Structure, simulated: Structure): void {
  assert.deepEqual(captured.calls, simulated.calls, 'the same calls in the same order on every host thread');
  const mismatches: string[] = [];
  let compared = 0;
  for (const [call, simBy] of simulated.releasedBy) {
    if ((simulated.blockedNs.get(call) ?? 0) <= PENDING_NS) continue;
    compared++;
    const capBy = captured.releasedBy.get(call);
    if (capBy !== simBy) mismatches.push(`${call}: captured ${capBy || 'none'}, simulated ${simBy || 'none'}`);
  }
  t.diagnostic(
    `${compared} pending waits compared, ${captured.edges.size} captured edges, ${simulated.edges.size} simulated`,
  );
  assert.ok(captured.calls.flat().length > 0, 'calls compared');
  assert.ok(compared > 0, 'pending waits compared');
  assert.ok(simulated.edges.size > 0, 'edges compared');
  assert.deepEqual(mismatches, []);
  assert.deepEqual(
    [...captured.edges].filter((e) => !simulated.edges.has(e)),
    [],
    'captured edges the simulator lacks',
  );
  assert.deepEqual(
    [...simulated.edges].filter((e) => !captured.edges.has(e)),
    [],
    'simulated edges the capture lacks',
  );
}

const notesOf = (trace: Trace): string => trace.meta.notes?.join('\n') ?? '';

test(
  'a CUDA C++ program over S1..S20: the same releasing ops and edges as its scenario, exact event identity, no causality violation',
  { skip: noCaptureCpp },
  async (t) => {
    assertCaptureLibrary();
    const exe = buildProgram('rules');
    const { trace, output } = await capture([exe], 'rules');
    t.diagnostic(output.trim());
    t.diagnostic(notesOf(trace));
    const perThread = new Set(trace.lanes.filter((l) => l.perThreadDefault).map((l) => l.id));
    const sim = simulate(compile(rulesScenario));
    compare(t, structureOf(trace, { skipLane: (l) => perThread.has(l) }), structureOf(sim));
    assert.deepEqual(causalityViolations(trace), []);

    // Lanes: flags and priorities as created; the worker thread; S4's per-thread default stream,
    // ordered before the legacy work that followed it.
    const lanes = trace.lanes;
    assert.deepEqual(lanes.filter((l) => l.kind === 'thread').map((l) => l.name).length, 2);
    // Lanes appear in the order streams are first used; their names follow creation order (a, b, hi, lo, w).
    const streams = lanes
      .filter((l) => l.kind === 'stream' && !l.legacyDefault && !l.perThreadDefault)
      .sort((x, y) => x.name.localeCompare(y.name));
    assert.deepEqual(
      streams.map((l) => [l.nonBlocking, l.priority]),
      [
        [false, 0],
        [true, 0],
        [true, -5],
        [true, 0],
        [true, 0],
      ],
    );
    const [pt] = lanes.filter((l) => l.perThreadDefault);
    assert.ok(pt, 'a per-thread default stream lane');
    const ptOp = [...Array(trace.ops.count).keys()].find((o) => trace.ops.lane[o] === pt.id);
    assert.ok(
      [...Array(trace.edges.count).keys()].some(
        (e) => trace.edges.from[e] === ptOp && str(trace, trace.ops.name[trace.edges.to[e]]) === 'spin',
      ),
      'legacy work after the per-thread stream is ordered after it (S4)',
    );
    // Answers: the query during the kernel was not ready, after the synchronize it was; elapsed
    // with a disable-timing event is an error (S11).
    const answers = [...Array(trace.calls.count).keys()]
      .filter((c) => callKind(trace, c) === 'query')
      .map((c) => trace.calls.answer[c]);
    assert.deepEqual(answers, [2, 1, 1]);
    const elapsed = [...Array(trace.calls.count).keys()].filter((c) => callKind(trace, c) === 'elapsed');
    assert.ok(trace.calls.value[elapsed[0]] >= 0.1, `elapsed ${trace.calls.value[elapsed[0]]} ms`);
    assert.equal(str(trace, trace.calls.status[elapsed[1]]), 'cudaErrorInvalidResourceHandle');
    assert.doesNotMatch(notesOf(trace), /disagree/);
    assert.doesNotMatch(notesOf(trace), /not captured/);
  },
);

test(
  'a PyTorch script (synchronize, side-stream event record, wait, query, synchronize): the same releasing ops and edges as its scenario',
  { skip: noCaptureTorch },
  async (t) => {
    assertCaptureLibrary();
    const { trace, output } = await capture(['python3', programPath('seed_events.py')], 'seed_events');
    t.diagnostic(output.trim());
    t.diagnostic(notesOf(trace));
    const main = trace.lanes.find((l) => l.kind === 'thread');
    assert.ok(main);
    // Everything up to the first torch.cuda.synchronize() is PyTorch's own setup.
    const calls = [...Array(trace.calls.count).keys()]
      .filter((c) => trace.calls.lane[c] === main.id)
      .sort((a, b) => trace.calls.begin[a] - trace.calls.begin[b]);
    const setup = calls.filter((c) => COMPARED.includes(callKind(trace, c)));
    const firstSync = setup.findIndex((c) => callKind(trace, c) === 'deviceSync');
    assert.ok(firstSync >= 0, 'the setup synchronize');
    const wait = setup.find((c) => callKind(trace, c) === 'streamWait');
    assert.ok(wait !== undefined);
    const side = trace.lanes.find(
      (l) =>
        l.kind === 'stream' &&
        !l.legacyDefault &&
        [...Array(trace.ops.count).keys()].some(
          (o) => trace.ops.lane[o] === l.id && str(trace, trace.ops.name[o]).endsWith('spin_kernel'),
        ),
    );
    assert.ok(side, 'the side stream');
    t.diagnostic(`PyTorch's side stream: ${side.nonBlocking ? 'non-blocking' : 'blocking'}, priority ${side.priority}`);
    const sim = simulate(compile(seedScenario(side.nonBlocking ?? false)));
    compare(t, structureOf(trace, { threads: 1, skipFirst: () => firstSync + 1 }), structureOf(sim));
    assert.deepEqual(causalityViolations(trace), []);
    assert.doesNotMatch(notesOf(trace), /disagree/);
    assert.match(output, /query before: False, after: True/);
  },
);
