// A count read's fix keeps the shape fixed (host-reads.ts: weight or fill by the mask): the fixed
// program reads no count, and runs no op to count with either. The count's own kernels are told by
// their names (COUNT_OP_KERNEL) where they run next to the read on its thread: the launches right
// before its copy and right after its synchronize, with the host work between them. The op that
// used the count (the gather of the selected rows) stays: the fixed program runs one in its place.
import { COUNT_OP_KERNEL } from '../analyze/host-reads';
import { str, type Trace } from '../trace/model';
import type { GeneratedStep, Threads } from './from-trace';

/**
 * Takes out of `th` the count op's launches around each synchronize step (`isSync`) of the finding's
 * `calls`, and the host work between them; returns how many launches went.
 */
export function dropCountKernels(
  th: Threads,
  calls: Set<number>,
  isSync: (s: GeneratedStep) => boolean,
  t: Trace,
): number {
  const isCount = (s: GeneratedStep) =>
    'launch' in s.step && s.op !== undefined && COUNT_OP_KERNEL.test(str(t, t.ops.name[s.op]));
  const within = (s: GeneratedStep) => isCount(s) || 'hostWork' in s.step || calls.has(s.call);
  let dropped = 0;
  for (const [name, steps] of th) {
    const drop = new Set<number>();
    steps.forEach((s, k) => {
      if (!calls.has(s.call) || !isSync(s)) return;
      let a = k;
      while (a > 0 && within(steps[a - 1])) a--;
      let b = k;
      while (b + 1 < steps.length && within(steps[b + 1])) b++;
      // The host work at either end is the ops' beside it as much as the count's: it stays.
      while (a < k && !isCount(steps[a]) && !calls.has(steps[a].call)) a++;
      while (b > k && !isCount(steps[b])) b--;
      // A read with no count kernel beside it is no count read: its steps all stay.
      if (!steps.slice(a, b + 1).some(isCount)) return;
      for (let j = a; j <= b; j++) if (!calls.has(steps[j].call) && steps[j].partOf === undefined) drop.add(j);
    });
    if (!drop.size) continue;
    dropped += [...drop].filter((j) => isCount(steps[j])).length;
    th.set(
      name,
      steps.filter((_, j) => !drop.has(j)),
    );
  }
  return dropped;
}

/** What dropCountKernels did, in words, after the edit's own. */
export const countKernelsText = (n: number): string =>
  n
    ? `; and take out the count's own ${n} kernel launch${n > 1 ? 'es' : ''} (nonzero's CUB count and select and ` +
      'write_indices, told by their names) with the host work between them, as a fixed shape (x * mask) runs no count'
    : '';
