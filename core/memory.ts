// What a command may allocate, and the checks that hold its largest allocations to that before
// they are made. The host reads the limits of its process (node/memory-limits.ts); core does the
// arithmetic on plain numbers, so that every budget can be read by hand.
import type { ScenarioBudget } from './scenario/kinds';
import { formatBytes } from './units';

/** The limits a process's memory is held to, in bytes; an absent one does not apply. */
export interface MemoryLimits {
  /** V8's heap limit (`heap_size_limit`) and what the heap holds now. */
  heapLimit: number;
  heapUsed: number;
  /** The address-space limit (RLIMIT_AS, `ulimit -v`) and the address space mapped now. */
  addressSpace?: number;
  mapped: number;
  /** The cgroup's memory limit (a container's) and what the process holds in memory now. */
  cgroup?: number;
  resident: number;
  /** The machine's memory. */
  physical: number;
}

/** Bytes that one limit leaves, the limit in words, and how to raise it. */
export interface Room {
  bytes: number;
  limit: string;
  raise: string;
}

/** What a command may still allocate. */
export interface MemoryBudget {
  /** Room on the JavaScript heap. */
  heap: Room;
  /** Room for everything, on the heap and off it (typed arrays): the least that any limit leaves. */
  total: Room;
  /** The input the work is for, named first in messages. */
  input?: string;
}

/**
 * Memory and address space that Node maps beyond the data itself as the heap grows (the young
 * generation, code, the allocator arenas of the threads that collect garbage), with room to spare:
 * it is about twice what a command of millions of steps maps beyond what it had at its start.
 */
export const RESERVE_BYTES = 256 * 2 ** 20;

/**
 * The most that one compiled step takes with everything made from it, at its peak over the kinds
 * of step: its call, op and edge rows, the analysis, and the explanation of the wait it may be in
 * `report --json`. HEAP_BYTES_PER_STEP of it are on the JavaScript heap.
 */
export const BYTES_PER_STEP = 640;
export const HEAP_BYTES_PER_STEP = 400;
/** A buffer access, beyond its step: its row and its place in the hazard analysis. */
export const BYTES_PER_ACCESS = 16;
/** BYTES_PER_STEP holds this many edges of a step; each one more costs BYTES_PER_EDGE (its row and graph entries). */
export const EDGES_PER_STEP = 4;
export const BYTES_PER_EDGE = 24;

/** The room that the limits leave: half the machine, and whichever of the others is smaller. */
export function memoryBudget(l: MemoryLimits, input?: string): MemoryBudget {
  const rooms: Room[] = [
    {
      bytes: l.physical / 2 - l.resident - RESERVE_BYTES,
      limit: `half the machine's memory (${formatBytes(l.physical)} in all)`,
      raise: 'use a machine with more memory',
    },
  ];
  if (l.addressSpace !== undefined)
    rooms.push({
      bytes: l.addressSpace - l.mapped - RESERVE_BYTES,
      limit: `the address-space limit (ulimit -v ${formatBytes(l.addressSpace)}, ${formatBytes(l.mapped)} of it mapped)`,
      raise: 'raise it with ulimit -v',
    });
  if (l.cgroup !== undefined)
    rooms.push({
      bytes: l.cgroup - l.resident - RESERVE_BYTES,
      limit: `the cgroup's memory limit (${formatBytes(l.cgroup)}, ${formatBytes(l.resident)} of it in use)`,
      raise: "raise the container's memory limit",
    });
  const total = rooms.reduce((a, b) => (b.bytes < a.bytes ? b : a));
  const heap: Room = {
    bytes: l.heapLimit - l.heapUsed,
    limit: `V8's heap limit (${formatBytes(l.heapLimit)})`,
    raise: 'raise it with NODE_OPTIONS=--max-old-space-size=<MiB>',
  };
  const floor0 = (r: Room): Room => ({ ...r, bytes: Math.max(0, Math.floor(r.bytes)) });
  return { heap: floor0(heap), total: floor0(total), input };
}

/**
 * The scenario budget that `m` holds: as many steps as fit on the heap and in all, and twice that
 * in simulated work (see ScenarioBudget). Its message says which limit sets it.
 */
export function stepBudget(m: MemoryBudget): ScenarioBudget {
  const byHeap = Math.floor(m.heap.bytes / HEAP_BYTES_PER_STEP);
  const byTotal = Math.floor(m.total.bytes / BYTES_PER_STEP);
  const [steps, room, perStep] =
    byHeap < byTotal ? [byHeap, m.heap, HEAP_BYTES_PER_STEP] : [byTotal, m.total, BYTES_PER_STEP];
  return {
    steps,
    work: 2 * steps,
    raise: `that many steps of ${perStep} bytes fill the ${formatBytes(room.bytes)} left under ${room.limit}; ${room.raise}`,
  };
}

/** Too much to allocate: names the input, what is too large, the limit, and how to raise it. */
export class MemoryBudgetError extends Error {
  override name = 'MemoryBudgetError';
}

/**
 * Throws before an allocation of `bytes` in all (`heapBytes` of them on the heap) that `m` has no
 * room for. `what` names it; `smaller` says what input would need less.
 */
export function checkRoom(m: MemoryBudget, what: string, smaller: string, bytes: number, heapBytes = 0): void {
  const [room, need] = heapBytes > m.heap.bytes ? [m.heap, heapBytes] : [m.total, bytes];
  if (need <= room.bytes) return;
  throw new MemoryBudgetError(
    `${m.input ? `${m.input}: ` : ''}${what} would take about ${formatBytes(need)}, more than the ` +
      `${formatBytes(room.bytes)} left under ${room.limit}; ${room.raise}, or ${smaller}`,
  );
}

/**
 * Checked before the simulator sizes its tables: their rows, and what the analysis makes of them,
 * with happens-before clocks over `lanes` lanes for at most every call and op (see checkClockRoom).
 */
export function checkTraceRows(
  m: MemoryBudget,
  rows: { calls: number; ops: number; edges: number; accesses: number },
  lanes: number,
): void {
  const extraEdges = Math.max(0, rows.edges - EDGES_PER_STEP * rows.calls);
  const bytes =
    rows.calls * BYTES_PER_STEP +
    rows.accesses * BYTES_PER_ACCESS +
    extraEdges * BYTES_PER_EDGE +
    clockBytesBeyondSteps(rows.calls + rows.ops, lanes);
  checkRoom(
    m,
    `the simulated trace of ${rows.calls} calls, ${rows.accesses} buffer accesses and ${lanes} lanes (host threads and streams), with its analysis,`,
    'use fewer steps, buffer accesses, host threads or streams',
    bytes,
    rows.calls * HEAP_BYTES_PER_STEP,
  );
}

/** Checked before the hazard check makes its table of the last read of each buffer on each lane. */
export const checkHazardRoom = (m: MemoryBudget, buffers: number, lanes: number): void =>
  checkRoom(
    m,
    `the hazard check of ${buffers} buffers on ${lanes} lanes`,
    'use fewer buffers or lanes',
    4 * buffers * lanes,
  );

/** BYTES_PER_STEP holds a clock row of this many lanes per step; each lane more costs 4 bytes a row. */
export const CLOCK_LANES_PER_STEP = 8;

const clockBytesBeyondSteps = (rows: number, lanes: number): number =>
  rows * Math.max(0, lanes - CLOCK_LANES_PER_STEP) * 4;

/**
 * Checked before the happens-before clocks are made (analyze/hb.ts): `rows` rows of one 32-bit
 * component per lane, beside what the calls take with the rest of the analysis.
 */
export function checkClockRoom(m: MemoryBudget, c: { rows: number; lanes: number; calls: number }): void {
  checkRoom(
    m,
    `the happens-before clocks of ${c.lanes} lanes (host threads and streams) over ${c.rows} nodes, with the rest of the analysis,`,
    'use fewer host threads or streams',
    c.calls * BYTES_PER_STEP + clockBytesBeyondSteps(c.rows, c.lanes),
  );
}
