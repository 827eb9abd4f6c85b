// A simulated fix in words (fixes.ts's FixResult): the edit, host and GPU busy time before and
// after, the saving or the cost, and the waits that change.
import { formatNs } from '../units';
import { savedNs, savedPerIterationNs, type FixResult } from './fixes';
import { overheadText } from './overhead';

const change = (a: number, b: number) =>
  `${formatNs(a)} -> ${formatNs(b)} (${b <= a ? '-' : '+'}${formatNs(Math.abs(b - a))})`;

/** One fix's prediction as `syncscope whatif` prints it, and the agents' `whatif` tool says it. */
export function describeFix(r: FixResult): string[] {
  const head = `${r.id} ${r.finding.kind}: ${r.finding.message.slice(0, 160)}`;
  const saved = savedNs(r);
  if (!r.after || saved === undefined) return [head, `    ${r.edit}`];
  const each = savedPerIterationNs(r);
  const lines = [
    head,
    `    edit: ${r.edit}`,
    `    done ${change(r.before.doneNs, r.after.doneNs)}; host time ${change(r.before.hostNs, r.after.hostNs)}; GPU busy ${change(r.before.gpuBusyNs, r.after.gpuBusyNs)}`,
    r.isCost
      ? `    cost of the fix: ${formatNs(Math.max(0, -saved))} more host time`
      : `    predicted saving: ${saved >= 0 ? formatNs(saved) : `none (${formatNs(-saved)} longer)`}`,
    ...(each !== undefined && saved > 0 && !r.isCost
      ? [
          `    per iteration: ${formatNs(each)} (${r.iterations} iterations${r.pace ? ', at their pace after the first' : ''})`,
        ]
      : []),
    `    ${overheadText(r.overhead)}`,
  ];
  for (const w of r.waits.slice(0, 8))
    lines.push(
      `    call ${w.call} ${w.name}: blocked ${formatNs(w.beforeNs)} -> ${w.afterNs === undefined ? 'gone' : formatNs(w.afterNs)}`,
    );
  if (r.waits.length > 8) lines.push(`    ... and ${r.waits.length - 8} more waits`);
  return lines;
}
