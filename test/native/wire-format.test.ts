// The wire format between core/gpu-run/encode.ts and the native runtime is written on both sides:
// native/check/wire_format_check.cc prints runtime.h's widths, offsets and opcodes, compiled here
// with the C++ compiler alone (no CUDA), and each must equal what encode.ts exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileScenario } from '../../core/scenario/parse';
import {
  BUFFER_WIDTH,
  encodeProgram,
  EVENT_WIDTH,
  LATENCY_SAMPLE_WIDTH,
  OPCODES,
  REC,
  RECORD_WIDTH,
  SCHEDULE_FLAGS,
  STEP_DEVICE,
  STEP_WIDTH,
  STREAM_WIDTH,
} from '../../core/gpu-run/encode';
import { repoPath } from '../helpers/paths';

interface NativeSide {
  stepWidth: number;
  stepDevice: number;
  streamWidth: number;
  eventWidth: number;
  bufferWidth: number;
  recordWidth: number;
  latencySampleWidth: number;
  opCount: number;
  ops: Record<string, number>;
  record: Record<string, number>;
  schedules: Record<string, number>;
  elementBytes: Record<string, number>;
}

const has = (cmd: string) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const cxx = process.env.CXX || ['c++', 'g++', 'clang++'].find(has);

/** runtime.h's side, from the check program built and run in a fresh folder. */
function nativeSide(): NativeSide {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-wire-'));
  try {
    const exe = join(dir, 'wire_format_check');
    const source = repoPath('native', 'check', 'wire_format_check.cc');
    const built = spawnSync(
      cxx!,
      ['-std=c++17', '-Wall', '-Wextra', '-Werror', `-I${repoPath('native', 'src')}`, source, '-o', exe],
      { encoding: 'utf8' },
    );
    assert.equal(built.status, 0, `${cxx} ${source}: ${built.stderr}`);
    const ran = spawnSync(exe, { encoding: 'utf8' });
    assert.equal(ran.status, 0, ran.stderr);
    return JSON.parse(ran.stdout) as NativeSide;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const skip = cxx ? undefined : 'no C++ compiler (c++, g++, clang++ or $CXX) here';
let native: NativeSide | undefined;
const side = () => (native ??= nativeSide());

test(
  'runtime.h and encode.ts agree on the widths of a step, stream, event, buffer, record and latency sample',
  { skip },
  () => {
    const n = side();
    assert.deepEqual(
      {
        stepWidth: n.stepWidth,
        stepDevice: n.stepDevice,
        streamWidth: n.streamWidth,
        eventWidth: n.eventWidth,
        bufferWidth: n.bufferWidth,
        recordWidth: n.recordWidth,
        latencySampleWidth: n.latencySampleWidth,
      },
      {
        stepWidth: STEP_WIDTH,
        stepDevice: STEP_DEVICE,
        streamWidth: STREAM_WIDTH,
        eventWidth: EVENT_WIDTH,
        bufferWidth: BUFFER_WIDTH,
        recordWidth: RECORD_WIDTH,
        latencySampleWidth: LATENCY_SAMPLE_WIDTH,
      },
    );
    assert.ok(STEP_DEVICE < STEP_WIDTH);
  },
);

test('runtime.h and encode.ts agree on every opcode', { skip }, () => {
  const n = side();
  assert.equal(n.opCount, OPCODES.length);
  assert.deepEqual(n.ops, Object.fromEntries(OPCODES.map((op, i) => [op, i])));
});

test('runtime.h and encode.ts agree on the offset of every field of a record', { skip }, () => {
  assert.deepEqual(side().record, { ...REC });
});

test('runtime.h and encode.ts agree on the CU_CTX_SCHED_* flag of every schedule', { skip }, () => {
  assert.deepEqual(side().schedules, { ...SCHEDULE_FLAGS });
});

test("the encoded arrays have the element sizes of the runtime's Job", { skip }, () => {
  const file = repoPath('examples', 'multi-gpu-pipeline.scenario.json');
  const job = encodeProgram(compileScenario(readFileSync(file, 'utf8'), file), { bareSteps: new Uint8Array(0) });
  const arrays = Object.entries(job).filter((e): e is [string, ArrayBufferView & { BYTES_PER_ELEMENT: number }] =>
    ArrayBuffer.isView(e[1]),
  );
  assert.deepEqual(Object.fromEntries(arrays.map(([k, v]) => [k, v.BYTES_PER_ELEMENT])), side().elementBytes);
});
