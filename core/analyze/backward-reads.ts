// A read that autograd's backward pass makes (a boolean mask's index_put, a masked_select's
// backward) comes from an op of the forward pass: the line that ran backward() is where it was
// waited for, not where it can be fixed. A profile names the backward node each op runs in
// (`autograd::engine::evaluate_function: IndexBackward0`), and the node's name names the forward
// op (IndexBackward0: aten::index). Where the forward op's own read is a finding too, the backward
// read's fix points to it: one change removes both, and the what-if simulates both together.
// A capture names no op: there a count read that autograd's engine made during backward() is tied
// to the count reads of the forward pass, an inference labelled as such (only a boolean-mask index,
// masked_select or nonzero's backward counts again).
import { BACKWARD_DEDUCED } from '../import/backward-lines';
import { callSite, str, type Finding, type Trace } from '../trace/model';
import { readOfCopy } from './host-reads';
import { frameworkOp, kernelBefore } from './host-syncs';

const NODE = /autograd::engine::evaluate_function: (([A-Z]\w*?)Backward\d*)(?: > |$)/;

/** The forward op a backward node stands for: IndexBackward0 is aten::index, MaskedSelectBackward0 aten::masked_select. */
export const forwardOpOf = (node: string): string =>
  'aten::' + node.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Adds to each hidden-sync finding made in a backward pass the place of the forward pass's finding
 * whose fix removes it, and `whatif --fix` with both: by the backward node's name where the trace
 * names ops, else for count reads by inference. `findings` are in their final order (F1 is the first).
 */
export function linkBackwardReads(t: Trace, findings: Finding[]): void {
  linkByNodeName(t, findings);
  linkCountReads(t, findings);
}

function linkByNodeName(t: Trace, findings: Finding[]): void {
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
    f.message += `; made in the backward pass of ${op} (${named})`;
    pointToForward(
      t,
      findings,
      k,
      forward.get(op) ?? [],
      `the forward pass's ${op}`,
      `inferred from the op names: ${named} is the backward of ${op}`,
    );
  });
}

/**
 * A trace without op names (a capture): a count read (readOfCopy's 'mask') whose line was deduced
 * from the backward() it ran in, tied to the count reads of lines outside any backward pass.
 */
function linkCountReads(t: Trace, findings: Finding[]): void {
  const counts = findings.map((f) => f.kind === 'hidden-sync' && !hasOpNames(t, f) && isCountRead(t, f));
  const inBackward = (f: Finding) => callSite(t, syncOf(f))?.deduced === BACKWARD_DEDUCED;
  const forward = findings.flatMap((f, k) => (counts[k] && !inBackward(f) ? [k] : []));
  findings.forEach((f, k) => {
    if (!counts[k] || !inBackward(f)) return;
    f.message += "; made by autograd's engine in the backward pass";
    pointToForward(t, findings, k, forward, "the forward pass's count read", COUNT_AGAIN);
  });
}

const COUNT_AGAIN =
  'inferred: in a backward pass, the backward of indexing with a boolean mask, masked_select or nonzero counts the mask again';

/** Points finding k's fix to the forward findings `from`, and to simulating them together. */
function pointToForward(t: Trace, findings: Finding[], k: number, from: number[], what: string, why: string): void {
  if (!from.length) return;
  const f = findings[k];
  const places = from.map((j) => `F${j + 1}${lineOf(t, findings[j])}`).join(' or ');
  const ids = [...from, k].map((j) => `F${j + 1}`).join('+');
  f.fix =
    `fix ${places}, ${what}: the same change removes this read of its backward (${why}); ` +
    `simulate both together with whatif --fix ${ids}${f.fix ? `. At that line: ${f.fix}` : ''}`;
}

const hasOpNames = (t: Trace, f: Finding): boolean => str(t, t.calls.context[syncOf(f)]).includes('aten::');

/** Whether a hidden-sync finding's copy reads a count: its few bytes right after a counting kernel on its stream. */
function isCountRead(t: Trace, f: Finding): boolean {
  const copy = f.ops[0] ?? -1;
  if (copy < 0) return false;
  return readOfCopy(t.ops.bytes[copy], kernelBefore(t, copy)).kind === 'mask';
}

/** A hidden-sync finding's read: its last call. */
const syncOf = (f: Finding): number => f.calls[f.calls.length - 1];

const lineOf = (t: Trace, f: Finding): string => {
  const frame = callSite(t, syncOf(f))?.frame;
  return frame ? ` (line ${frame.line})` : '';
};
