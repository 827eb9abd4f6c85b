// Which CUDA devices a scenario needs (S21), checked before anything touches the GPU: a scenario
// that names device 1 on a one-GPU machine fails at the step that first uses it, with the count.
import type { Pos, Program } from '../scenario/program';
import { stepDevice } from './encode';

export interface Use {
  pos: Pos;
  /** The step, where a step uses it (not only a declaration). */
  step?: { thread: string; index: number; line: number; column: number };
}

/** Where the scenario first uses `device`: the first step that runs on it, else where it is declared. */
export function firstUse(program: Program, device: number): Use {
  for (const t of program.threads) {
    const index = t.steps.findIndex((s) => stepDevice(program, s) === device);
    const s = t.steps[index];
    if (s) return { pos: s.pos, step: { thread: t.name, index, line: s.pos.line, column: s.pos.column } };
  }
  return { pos: program.devices[device]?.pos ?? { line: 1, column: 1 } };
}

/**
 * The message for a scenario that needs more CUDA devices than `count` (its device d runs on CUDA
 * device `base + d`), or undefined when they are all there.
 */
export function missingDevice(program: Program, count: number, base = 0): (Use & { message: string }) | undefined {
  const used = program.devices.filter((d) => d.used && base + d.id >= count);
  if (used.length === 0) return undefined;
  const d = used[0].id;
  const use = firstUse(program, d);
  const { pos } = use;
  const where = `${program.file ?? 'scenario'}:${pos.line}:${pos.column}`;
  const on = base === 0 ? '' : ` (CUDA device ${base + d}, counting from --device ${base})`;
  const has = `${count} CUDA device${count === 1 ? '' : 's'}`;
  return { ...use, message: `${where}: scenario uses device ${d}${on} but this machine has ${has}` };
}
