// Where autograd's backward pass returned to the script. A profile with stacks records the Python
// calls Tensor.backward and torch.autograd.backward; each ends when the engine's threads have done
// the pass and the script's thread has woken. The plain steps' backwardNs is timed from the call to
// that return, so the host work between the engine's last call and the script's next one is the
// engine's only up to it: after it, the script's thread runs its own Python (the optimizer's step
// up to its first launch, say).
import { countAtMost } from '../stats';
import { CK } from '../trace/kinds';
import type { Trace } from '../trace/model';

/** Torch's Python functions that run autograd's backward pass: Tensor.backward, torch.autograd.backward. */
const BACKWARD_CALL = /(^|[\\/])torch[\\/](_tensor\.py|autograd[\\/]__init__\.py)\(\d+\): backward$/;

const returnsOf = new WeakMap<Trace, Float64Array>();

/** The ends of the trace's backward calls, ascending, made once per trace. */
function backwardReturns(t: Trace): Float64Array {
  let ends = returnsOf.get(t);
  if (ends) return ends;
  const named = t.strings.map((s) => BACKWARD_CALL.test(s));
  const list: number[] = [];
  for (let i = 0; i < t.calls.count; i++)
    if (t.calls.kind[i] === CK.context && named[t.calls.name[i]]) list.push(t.calls.end[i]);
  ends = Float64Array.from(list).sort();
  returnsOf.set(t, ends);
  return ends;
}

/** The latest return from a backward call in (from, to), or undefined where the trace shows none there. */
export function backwardReturnIn(t: Trace, from: number, to: number): number | undefined {
  const ends = backwardReturns(t);
  const below = countAtMost(ends.length, (k) => (ends[k] < to ? 0 : 1), 0);
  return below > 0 && ends[below - 1] > from ? ends[below - 1] : undefined;
}
