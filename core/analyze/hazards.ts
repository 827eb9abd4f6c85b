// Hazards on declared buffers: two accesses to one buffer, at least one a write, with no
// happens-before between them (S2: streams are unordered unless a rule orders them). Accesses are
// taken in time order, keeping per buffer the last write and, per lane, the last read since it,
// as a race detector does: a later access need only be compared with those.
import { checkHazardRoom, type MemoryBudget } from '../memory';
import type { Finding, Trace } from '../trace/model';
import { str } from '../trace/model';
import type { AccessIndex } from './accesses';
import { placeKey } from './collect';
import { atLine, callSource, opName, opStream } from './describe';
import type { HappensBefore } from './hb';
import type { Hazard, HazardAccess } from './types';

/** Each buffer's index, in the order of its first access; the room for its per-lane reads checked first. */
function indexBuffers(t: Trace, lanes: number, memory?: MemoryBudget): Map<number, number> {
  const a = t.accesses;
  const index = new Map<number, number>();
  for (let i = 0; i < a.count; i++) if (!index.has(a.buffer[i])) index.set(a.buffer[i], index.size);
  if (memory) checkHazardRoom(memory, index.size, lanes);
  return index;
}

export function findHazards(
  t: Trace,
  hb: HappensBefore,
  access: AccessIndex,
  memory?: MemoryBudget,
): { hazards: Hazard[]; findings: Finding[] } {
  const a = t.accesses;
  const g = hb.graph;
  const C = g.calls;
  const L = t.lanes.length;
  const bufferIndex = indexBuffers(t, L, memory);
  const B = bufferIndex.size;
  // No buffer declared, nothing to race on (imported traces declare none): no pass over the ops.
  if (!B) return { hazards: [], findings: [] };
  const ops: number[] = [];
  for (let j = 0; j < t.ops.count; j++) if (access.start[j + 1] > access.start[j]) ops.push(j);
  let sorted = true;
  for (let k = 1; k < ops.length && sorted; k++) sorted = t.ops.start[ops[k - 1]] <= t.ops.start[ops[k]];
  if (!sorted) ops.sort((x, y) => t.ops.start[x] - t.ops.start[y] || x - y);

  const lastWrite = new Int32Array(B).fill(-1);
  const reads = new Int32Array(B * L).fill(-1);

  const hazards = new Map<string, { h: Hazard; f: Finding }>();
  const ordered = (x: number, y: number) => hb.beforeNode(C + x, C + y) || hb.beforeNode(C + y, C + x);
  const describe = (op: number, write: boolean): HazardAccess => {
    const call = t.ops.call[op];
    const h: HazardAccess = { op, call, name: opName(t, op), stream: opStream(t, op), write };
    const src = callSource(t, call);
    if (src) h.source = src;
    return h;
  };
  const place = (op: number, call: number) =>
    placeKey(t.calls.line[call] ?? 0, t.calls.column[call] ?? 0, `${t.ops.lane[op]} ${t.ops.name[op]}`);
  const report = (buffer: number, x: number, xWrite: boolean, y: number, yWrite: boolean) => {
    if (x === y || ordered(x, y)) return;
    const cx = t.ops.call[x];
    const cy = t.ops.call[y];
    const key = `${buffer}|${place(x, cx)}|${place(y, cy)}`;
    const seen = hazards.get(key);
    if (seen) {
      seen.h.count++;
      return;
    }
    const bufName = str(t, buffer);
    const first = describe(x, xWrite);
    const second = describe(y, yWrite);
    const verb = (w: boolean) => (w ? 'writes' : 'reads');
    hazards.set(key, {
      h: {
        buffer: bufName,
        first,
        second,
        count: 1,
        fix: { recordOn: first.stream, after: cx, waitIn: second.stream, before: cy },
      },
      f: {
        rule: 'S2',
        kind: 'race',
        severity: 'error',
        message:
          `race on buffer "${bufName}": "${first.name}" on stream ${first.stream}${atLine(t, cx)} ${verb(xWrite)} it and ` +
          `"${second.name}" on stream ${second.stream}${atLine(t, cy)} ${verb(yWrite)} it, with nothing ordering them`,
        calls: [cx, cy].filter((n) => n >= 0),
        ops: [x, y],
        ...(second.source ? { source: second.source } : {}),
        fix:
          `record an event on stream ${first.stream} after "${first.name}"${atLine(t, cx)}, and wait on it in stream ` +
          `${second.stream} before "${second.name}"${atLine(t, cy)}`,
      },
    });
  };

  for (const y of ops) {
    const lane = t.ops.lane[y];
    for (const pass of [0, 1]) {
      for (let k = access.start[y]; k < access.start[y + 1]; k++) {
        const row = access.rows[k];
        const write = a.write[row] === 1;
        if (write !== (pass === 1)) continue; // reads first, so an op that reads and writes is one access
        const buf = bufferIndex.get(a.buffer[row])!;
        const w = lastWrite[buf];
        if (w >= 0) report(a.buffer[row], w, true, y, write);
        if (write) {
          for (let l = 0; l < L; l++) {
            const r = reads[buf * L + l];
            if (r >= 0) report(a.buffer[row], r, false, y, true);
            reads[buf * L + l] = -1;
          }
          lastWrite[buf] = y;
        } else reads[buf * L + lane] = y;
      }
    }
  }
  const found = [...hazards.values()];
  return {
    hazards: found.map((e) => e.h),
    findings: found.map(({ h, f }) => (h.count > 1 ? { ...f, message: `${f.message} (${h.count} times)` } : f)),
  };
}
