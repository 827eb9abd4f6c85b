// Which SEMANTICS.md rules govern a host call, so that the details pane can name them.
import { CALL_KINDS, Trace } from '../core/trace/model';

const BY_KIND: Partial<Record<(typeof CALL_KINDS)[number], string[]>> = {
  eventSync: ['S12', 'S15', 'S16'],
  streamSync: ['S13', 'S15', 'S16'],
  deviceSync: ['S14', 'S15', 'S16'],
  query: ['S10'],
  streamWait: ['S8'],
  record: ['S6', 'S7'],
  elapsed: ['S11'],
  memcpy: ['S17', 'S18'],
  memset: ['S18'],
  hostFunc: ['S20'],
};

export function callRules(t: Trace, i: number): string[] {
  const kind = CALL_KINDS[t.calls.kind[i]];
  const rules = [...(BY_KIND[kind] ?? [])];
  if (kind === 'launch' && t.calls.blockedNs[i] > 0) rules.push('S19');
  for (const f of t.findings) if (f.calls.includes(i) && !rules.includes(f.rule)) rules.push(f.rule);
  return rules;
}
