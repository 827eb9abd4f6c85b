// What a release arrow says when the pointer is on it: which op released which wait, the line of the
// user's program that waited and the line that launched the releasing op, in describe.ts's words.
import { callSiteText, launchedText, opName, siteLabel, siteSource } from '../core/analyze/describe';
import { OK } from '../core/trace/kinds';
import { shortKernelName } from '../core/trace/kernel-names';
import { CALL_KINDS, Trace, callSite, str } from '../core/trace/model';
import { formatNs } from './format';

/** "waited at train.py:24 in step()", "waited in step() (train.py:8)", else where the call was made. */
function waitedText(t: Trace, call: number): string {
  const site = callSite(t, call);
  if (!site) return `waited: ${callSiteText(t, call)}`;
  return site.precision === 'line' ? `waited at ${siteLabel(site)}` : `waited ${siteLabel(site)}`;
}

/** "launched at train.py:21 in step()", else where the launching call was made. */
function launchText(t: Trace, op: number): string {
  const call = t.ops.call[op];
  if (call < 0) return 'launched by no call this trace holds';
  const site = callSite(t, call);
  return site ? launchedText(siteSource(site)) : `launched: ${callSiteText(t, call)}`;
}

/** The tooltip of release edge `edge` (op -> the wait it ended), title first. */
export function releaseArrowLines(t: Trace, edge: number): string[] {
  const op = t.edges.from[edge];
  const call = t.edges.to[edge];
  const name = t.ops.kind[op] === OK.kernel ? shortKernelName(opName(t, op)) : opName(t, op);
  const wait = str(t, t.calls.name[call]) || CALL_KINDS[t.calls.kind[call]];
  const lines = [`"${name}" released ${wait}`, waitedText(t, call), launchText(t, op)];
  if (t.calls.blockedNs[call] > 0) lines.push(`host blocked ${formatNs(t.calls.blockedNs[call])}`);
  return lines;
}
