// The memory budget's arithmetic, on limits chosen so that every number can be worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkClockRoom,
  checkTraceRows,
  memoryBudget,
  MemoryBudgetError,
  stepBudget,
  type MemoryLimits,
} from '../../core/memory';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { h200, simulate } from '../../core/simulate';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** `ulimit -v 4194304` (4 GiB) with 1 GiB mapped, on a 64 GiB machine with a 4 GiB heap. */
const UNDER_ULIMIT: MemoryLimits = {
  heapLimit: 4 * GiB,
  heapUsed: 96 * MiB,
  addressSpace: 4 * GiB,
  mapped: 1 * GiB,
  resident: 64 * MiB,
  physical: 64 * GiB,
};

test('the address-space limit, less what is mapped and a 256 MiB reserve, sets the room', () => {
  const m = memoryBudget(UNDER_ULIMIT, 'x.scenario.json');
  // 4096 - 1024 - 256 MiB; half the machine would leave 32768 - 64 - 256 MiB.
  assert.equal(m.total.bytes, 2816 * MiB);
  assert.equal(m.total.limit, 'the address-space limit (ulimit -v 4 GiB, 1 GiB of it mapped)');
  assert.equal(m.total.raise, 'raise it with ulimit -v');
  assert.equal(m.heap.bytes, 4000 * MiB);
  assert.equal(m.input, 'x.scenario.json');
});

test('the step budget is the room over 640 bytes a step, or the heap over 400, whichever is less', () => {
  // 2816 MiB = 2,952,790,016 bytes / 640 = 4,613,734.4 steps; the heap would hold 4000 MiB / 400 = 10,485,760.
  assert.deepEqual(stepBudget(memoryBudget(UNDER_ULIMIT)), {
    steps: 4_613_734,
    work: 9_227_468,
    raise:
      'that many steps of 640 bytes fill the 2.75 GiB left under the address-space limit (ulimit -v 4 GiB, 1 GiB of it mapped); raise it with ulimit -v',
  });
  // No address-space limit and a 512 MiB heap: 536,870,912 / 400 = 1,342,177 steps, fewer than
  // half of 64 GiB holds at 640 bytes (32448 MiB / 640 = 53,163,622).
  const heapBound = stepBudget(
    memoryBudget({ ...UNDER_ULIMIT, addressSpace: undefined, heapLimit: 512 * MiB, heapUsed: 0 }),
  );
  assert.equal(heapBound.steps, 1_342_177);
  assert.match(
    heapBound.raise ?? '',
    /V8's heap limit \(512 MiB\); raise it with NODE_OPTIONS=--max-old-space-size=<MiB>$/,
  );
});

test('a cgroup limit below the others sets the room, less what the process holds', () => {
  const m = memoryBudget({ ...UNDER_ULIMIT, cgroup: 2 * GiB });
  // 2048 - 64 - 256 MiB = 1728 MiB, below the address space's 2816 MiB.
  assert.equal(m.total.bytes, 1728 * MiB);
  assert.equal(m.total.raise, "raise the container's memory limit");
  // 1,811,939,328 bytes / 640 = 2,831,155.2 steps.
  assert.equal(stepBudget(m).steps, 2_831_155);
});

test('a limit already spent leaves no room, never a negative one', () => {
  const m = memoryBudget({ ...UNDER_ULIMIT, mapped: 4 * GiB });
  assert.equal(m.total.bytes, 0);
  assert.equal(stepBudget(m).steps, 0);
});

test("the simulator's rows are checked against the room before they are made", () => {
  const m = memoryBudget(UNDER_ULIMIT, 'x.scenario.json');
  // 4,613,734 calls of 640 bytes (2,952,789,760) fit in 2,952,790,016; 4 edges a call come with them.
  const full = { calls: 4_613_734, ops: 4_613_734, edges: 4 * 4_613_734, accesses: 0 };
  checkTraceRows(m, full, 8);
  assert.throws(() => checkTraceRows(m, { ...full, calls: full.calls + 1 }, 8), MemoryBudgetError);
  // A fifth edge a call costs 24 bytes more each: 4,613,734 * 24 = 110,729,616 more, 2.85 GiB in all.
  assert.throws(
    () => checkTraceRows(m, { ...full, edges: 5 * full.calls }, 8),
    /about 2\.85 GiB, more than the 2\.75 GiB/,
  );
  // Buffer accesses cost 16 bytes each beyond their step: 10^6 calls (640,000,000 bytes) and 10^8
  // accesses (1,600,000,000) fit in 2,952,790,016 bytes; 1.5 * 10^8 (2,400,000,000: 2.83 GiB in all) do not.
  checkTraceRows(m, { calls: 1e6, ops: 1e6, edges: 2e6, accesses: 1e8 }, 8);
  assert.throws(
    () => checkTraceRows(m, { calls: 1e6, ops: 1e6, edges: 2e6, accesses: 1.5e8 }, 8),
    (e: Error) =>
      e.message ===
      'x.scenario.json: the simulated trace of 1000000 calls, 150000000 buffer accesses and 8 lanes (host threads and streams), with its analysis, ' +
        'would take about 2.83 GiB, more than the 2.75 GiB left under the address-space limit (ulimit -v 4 GiB, 1 GiB of it mapped); ' +
        'raise it with ulimit -v, or use fewer steps, buffer accesses, host threads or streams',
  );
});

test('lanes beyond 8 cost a 4-byte clock component for every call and op', () => {
  const m = memoryBudget(UNDER_ULIMIT, 'many.scenario.json');
  // 1,500 threads of 1,000 launches on one stream: 1,501 lanes, 1.5 * 10^6 calls and as many ops.
  // 1.5e6 * 640 + 3e6 * (1501 - 8) * 4 = 960,000,000 + 17,916,000,000 bytes = 17.6 GiB.
  assert.throws(
    () => checkTraceRows(m, { calls: 1.5e6, ops: 1.5e6, edges: 3e6, accesses: 0 }, 1501),
    (e: Error) =>
      /^many\.scenario\.json: .* 1501 lanes .* would take about 17\.6 GiB, more than the 2\.75 GiB left under the address-space limit/.test(
        e.message,
      ),
  );
  // The same clocks met in a loaded trace, before they are made: 3 * 10^6 rows of 1,501 lanes.
  assert.throws(
    () => checkClockRoom(m, { rows: 3e6, lanes: 1501, calls: 1.5e6 }),
    (e: Error) =>
      e instanceof MemoryBudgetError &&
      e.message ===
        'many.scenario.json: the happens-before clocks of 1501 lanes (host threads and streams) over 3000000 nodes, with the rest of the analysis, ' +
          'would take about 17.6 GiB, more than the 2.75 GiB left under the address-space limit (ulimit -v 4 GiB, 1 GiB of it mapped); ' +
          'raise it with ulimit -v, or use fewer host threads or streams',
  );
  // Up to 8 lanes, the clocks are part of a step's 640 bytes.
  checkClockRoom(m, { rows: 4_613_734, lanes: 8, calls: 4_613_734 });
});

test('the heap is checked as well: 400 bytes of each call are on it', () => {
  // A 1 GiB heap with nothing on it: 2,684,354 calls of 400 bytes fit, one more does not.
  const m = memoryBudget({ ...UNDER_ULIMIT, heapLimit: GiB, heapUsed: 0 });
  checkTraceRows(m, { calls: 2_684_354, ops: 0, edges: 0, accesses: 0 }, 1);
  assert.throws(
    () => checkTraceRows(m, { calls: 2_684_355, ops: 0, edges: 0, accesses: 0 }, 1),
    /more than the 1 GiB left under V8's heap limit \(1 GiB\); raise it with NODE_OPTIONS/,
  );
});

test('the simulator and the analysis check before they allocate, where they are given a budget', () => {
  // 10 threads of 10 launches on the legacy default stream: 100 calls, 11 lanes.
  const threads = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`t${i}`, [{ repeat: 10, steps: [{ launch: 'k', us: 1 }] }]]),
  );
  const program = compileScenario(JSON.stringify({ name: 'ten', threads }), 'ten.scenario.json');
  const none = memoryBudget({ ...UNDER_ULIMIT, mapped: 4 * GiB }, 'ten.scenario.json');
  assert.throws(
    () => simulate(program, h200, none),
    (e: Error) =>
      e instanceof MemoryBudgetError &&
      e.message.startsWith('ten.scenario.json: the simulated trace of 100 calls, 0 buffer accesses and 11 lanes'),
  );
  const trace = simulate(program);
  assert.throws(
    () => analyze(trace, { program, memory: none }),
    (e: Error) =>
      e instanceof MemoryBudgetError &&
      /^ten\.scenario\.json: the happens-before clocks of 11 lanes \(host threads and streams\) over \d+ nodes/.test(
        e.message,
      ),
  );
  // Without a budget (the caller vouches for the input), neither checks.
  assert.doesNotThrow(() => analyze(trace, { program }));
});
