// A read that autograd's backward pass makes (a boolean mask's index_put, a masked_select's
// backward) comes from an op of the forward pass: the line that ran backward() is where it was
// waited for, not where it can be fixed. A profile names the backward node each op runs in
// (`autograd::engine::evaluate_function: IndexBackward0`), and the node's name names the forward
// op (IndexBackward0: aten::index). Where the forward op's own read is a finding too, the backward
// read's fix points to it: one change removes both, and the what-if simulates both together.
import { callSite, str, type Finding, type Trace } from '../trace/model';
import { frameworkOp } from './host-syncs';

const NODE = /autograd::engine::evaluate_function: (([A-Z]\w*?)Backward\d*)(?: > |$)/;

/** The forward op a backward node stands for: IndexBackward0 is aten::index, MaskedSelectBackward0 aten::masked_select. */
export const forwardOpOf = (node: string): string =>
  'aten::' + node.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Adds to each hidden-sync finding made in a backward node whose forward op has a hidden-sync
 * finding of its own the place of that finding, and `whatif --fix` with both. `findings` are in
 * their final order (F1 is the first).
 */
export function linkBackwardReads(t: Trace, findings: Finding[]): void {
  const contextOf = (f: Finding) => (syncOf(f) >= 0 ? str(t, t.calls.context[syncOf(f)]) : '');
  const forward = new Map<string, number[]>();
  findings.forEach((f, k) => {
    const context = contextOf(f);
    const op =
      f.kind === 'hidden-sync' && context.includes('aten::') && !NODE.test(context) ? frameworkOp(context) : '';
    if (op) (forward.get(op) ?? forward.set(op, []).get(op)!).push(k);
  });
  findings.forEach((f, k) => {
    const node = f.kind === 'hidden-sync' ? NODE.exec(contextOf(f)) : null;
    if (!node) return;
    const [, named, base] = node;
    const op = forwardOpOf(base);
    const from = forward.get(op) ?? [];
    f.message += `; made in the backward pass of ${op} (${named})`;
    if (!from.length) return;
    const places = from.map((j) => `F${j + 1}${lineOf(t, findings[j])}`).join(' or ');
    const ids = [...from, k].map((j) => `F${j + 1}`).join('+');
    f.fix =
      `fix ${places}, the forward pass's ${op}: the same change removes this read of its backward ` +
      `(inferred from the op names: ${named} is the backward of ${op}); simulate both together with ` +
      `whatif --fix ${ids}${f.fix ? `. At that line: ${f.fix}` : ''}`;
  });
}

/** A hidden-sync finding's read: its last call. */
const syncOf = (f: Finding): number => f.calls[f.calls.length - 1];

const lineOf = (t: Trace, f: Finding): string => {
  const frame = callSite(t, syncOf(f))?.frame;
  return frame ? ` (line ${frame.line})` : '';
};
