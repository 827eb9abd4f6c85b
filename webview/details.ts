// The details pane: what the selected call or op is, and for a wait what it waited for, the op
// that released it and how long the host took to notice.
import { callRules, callTarget, releasedByText, releasingOps } from '../core/analyze/describe';
import { isWait } from '../core/trace/kinds';
import {
  CALL_KINDS,
  callSite,
  EDGE_KINDS,
  OP_KINDS,
  COPY_KINDS,
  HOST_MEMORY,
  SourceFrame,
  Trace,
  releaseHow,
  str,
} from '../core/trace/model';
import { el } from './dom';
import { simulateFixButton } from './findings';
import { edgeFromIsCall, edgeToIsCall } from './edges';
import { formatAt, formatBytes, formatNs } from './format';
import type { Item } from './view';

export interface DetailsActions {
  select(item: Item): void;
  revealSource(line: number, column: number): void;
  openSource(file: string, line: number): void;
  /** Absent where the host cannot simulate fixes (a standalone page). */
  simulateFix?: (finding: number) => void;
}

export function itemLabel(t: Trace, item: Item): string {
  if (item.table === 'ops') {
    const name = str(t, t.ops.name[item.id]) || OP_KINDS[t.ops.kind[item.id]];
    return `${name} · ${t.lanes[t.ops.lane[item.id]]?.name ?? '?'}`;
  }
  const name = str(t, t.calls.name[item.id]) || CALL_KINDS[t.calls.kind[item.id]];
  return `${name} · ${t.lanes[t.calls.lane[item.id]]?.name ?? '?'}`;
}

function link(t: Trace, item: Item, act: DetailsActions): HTMLElement {
  const a = el(
    'a',
    { href: '#', class: 'item-link', 'data-table': item.table, 'data-id': String(item.id) },
    itemLabel(t, item),
  );
  a.addEventListener('click', (e) => {
    e.preventDefault();
    act.select(item);
  });
  return a;
}

type Field = [string, string | Node];

/** The releasing op's link, labelled as the report labels it: "likely" when inferred by timing, "(deduced)" when the rules left only it. */
function releasedByNode(t: Trace, call: number, op: HTMLElement): Node {
  const how = releaseHow(t, call);
  if (how === 'exact') return op;
  return el('span', {}, how === 'timing' ? 'likely ' : '', op, how === 'deduced' ? ' (deduced)' : '');
}

/** Start and end, precise enough that their difference shows. */
const span = (a: number, b: number): string => {
  const resolution = Math.max(1, (b - a) / 10);
  return `${formatAt(a, resolution)} → ${formatAt(b, resolution)}`;
};

const MAX_LISTED = 40;

function table(fields: Field[]): HTMLElement {
  const dl = el('dl', { class: 'fields' });
  for (const [k, v] of fields) dl.append(el('dt', {}, k), el('dd', {}, v));
  return dl;
}

export function renderDetails(box: HTMLElement, t: Trace, item: Item | null, act: DetailsActions): void {
  box.replaceChildren();
  if (!item) {
    box.append(el('p', { class: 'hint' }, 'Click a call or an op to see what it waited for and what it released.'));
    return;
  }
  if (item.table === 'calls') callDetails(box, t, item.id, act);
  else opDetails(box, t, item.id, act);
  const findings = t.findings.filter((f) => (item.table === 'calls' ? f.calls : f.ops).includes(item.id));
  if (findings.length) {
    box.append(el('h3', {}, 'Findings'));
    for (const f of findings)
      box.append(
        el(
          'p',
          { class: `finding-inline ${f.severity}` },
          `${f.rule} ${f.message}`,
          simulateFixButton(t, f, act.simulateFix),
        ),
      );
  }
}

function callDetails(box: HTMLElement, t: Trace, i: number, act: DetailsActions): void {
  const c = t.calls;
  const kind = CALL_KINDS[c.kind[i]];
  box.append(el('h2', { class: 'details-title' }, str(t, c.name[i]) || kind));
  const f: Field[] = [
    ['Kind', kind],
    ['Thread', t.lanes[c.lane[i]]?.name ?? '?'],
    ['Time', span(c.begin[i], c.end[i])],
    ['Duration', formatNs(c.end[i] - c.begin[i])],
  ];
  const wait = isWait(t, i);
  if (wait || kind === 'streamWait' || kind === 'query' || kind === 'record') {
    const target = callTarget(t, i);
    if (target) f.push([kind === 'record' ? 'Records' : 'Waited for', target]);
  }
  if (wait) {
    f.push(['Blocked', formatNs(c.blockedNs[i])]);
    const r = c.releasedBy[i];
    f.push([
      'Released by',
      r >= 0 ? releasedByNode(t, i, link(t, { table: 'ops', id: r }, act)) : releasedByText(releasingOps(t, i)),
    ]);
    // Where the user's program launched the releasing op: the other line of the wait.
    const launch = r >= 0 && t.ops.call[r] >= 0 ? callSite(t, t.ops.call[r]) : undefined;
    if (launch) f.push(['Launched at', siteField(launch.frame, launch.precision, act)]);
    f.push(['Unblock latency', Number.isFinite(c.unblockNs[i]) ? formatNs(c.unblockNs[i]) : '—']);
  }
  if (c.answer[i])
    f.push([
      'Answer',
      c.answer[i] === 1 ? 'ready (cudaSuccess)' : c.answer[i] === 2 ? 'not ready (cudaErrorNotReady)' : 'error',
    ]);
  if (c.status[i]) f.push(['Status', str(t, c.status[i])]);
  if (Number.isFinite(c.value[i])) f.push(['Value', `${c.value[i]} ms`]);
  if (c.bytes[i]) f.push(['Bytes', formatBytes(c.bytes[i])]);
  if (c.context[i]) f.push(['Context', str(t, c.context[i])]);
  const site = callSite(t, i);
  if (site) f.push(['Source', siteField(site.frame, site.precision, act)]);
  // The call's own rules, as the report gives them, then those of the findings about it.
  const rules = callRules(t, i);
  for (const finding of t.findings)
    if (finding.calls.includes(i) && !rules.includes(finding.rule)) rules.push(finding.rule);
  if (rules.length) f.push(['Rules', rules.join(', ')]);
  box.append(table(f));
  if (site?.stack.length) box.append(stackList(site.stack, act));
  appendEdges(box, t, { table: 'calls', id: i }, act);
  if (c.line[i] > 0) {
    const b = el('button', { type: 'button', class: 'reveal' }, `Reveal in scenario (line ${c.line[i]})`);
    b.addEventListener('click', () => act.revealSource(c.line[i], c.column[i]));
    box.append(b);
  }
}

/** A link that asks the host to open `frame`'s file at its line. */
function sourceLink(frame: SourceFrame, act: DetailsActions): HTMLElement {
  const a = el('a', { href: '#', class: 'source-link' }, frame.line > 0 ? `${frame.file}:${frame.line}` : frame.file);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    act.openSource(frame.file, frame.line);
  });
  return a;
}

const fnName = (frame: SourceFrame) => (frame.function.startsWith('<') ? frame.function : `${frame.function}()`);

/** "train.py:42 in loop()"; for a function site, only the function and where it was entered. */
function siteField(frame: SourceFrame, precision: 'line' | 'function', act: DetailsActions): HTMLElement {
  if (precision === 'line') return el('span', {}, sourceLink(frame, act), ` in ${fnName(frame)}`);
  return el(
    'span',
    { title: 'The trace names only the function the call ran in: the line is where that function was entered.' },
    `in function ${fnName(frame)}, entered at `,
    sourceLink(frame, act),
  );
}

/** The whole stack at the call, innermost first, collapsed. */
function stackList(stack: SourceFrame[], act: DetailsActions): HTMLElement {
  const list = el('ol', { class: 'stack' });
  for (const frame of stack) list.append(el('li', {}, sourceLink(frame, act), ` ${fnName(frame)}`));
  return el('details', { class: 'stack' }, el('summary', {}, `Stack (${stack.length} frames)`), list);
}

function opDetails(box: HTMLElement, t: Trace, i: number, act: DetailsActions): void {
  const o = t.ops;
  const kind = OP_KINDS[o.kind[i]];
  box.append(el('h2', { class: 'details-title' }, str(t, o.name[i]) || kind));
  const lane = t.lanes[o.lane[i]];
  const f: Field[] = [
    ['Kind', kind],
    ['Stream', lane ? `${lane.name}` : '?'],
    ['Time', span(o.start[i], o.end[i])],
    ['Duration', formatNs(o.end[i] - o.start[i])],
  ];
  if (o.grid[i]) f.push(['Grid × block', `${o.grid[i]} × ${o.block[i] || '?'}`]);
  if (o.bytes[i]) f.push(['Bytes', formatBytes(o.bytes[i])]);
  if (o.copy[i])
    f.push([
      'Copy',
      `${COPY_KINDS[o.copy[i]]}${o.hostMemory[i] ? ', ' + HOST_MEMORY[o.hostMemory[i]] + ' host memory' : ''}`,
    ]);
  if (o.event[i]) f.push(['Event', str(t, o.event[i])]);
  if (o.call[i] >= 0) f.push(['Issued by', link(t, { table: 'calls', id: o.call[i] }, act)]);
  if (Number.isFinite(o.truthStart[i])) f.push(['Kernel clock', span(o.truthStart[i], o.truthEnd[i])]);
  const access = [];
  for (let k = 0; k < t.accesses.count; k++)
    if (t.accesses.op[k] === i)
      access.push(`${t.accesses.write[k] ? 'writes' : 'reads'} ${str(t, t.accesses.buffer[k])}`);
  if (access.length) f.push(['Buffers', access.join(', ')]);
  box.append(table(f));
  appendEdges(box, t, { table: 'ops', id: i }, act);
}

/** Dependencies in and out: every edge of the trace that touches the item. */
function appendEdges(box: HTMLElement, t: Trace, item: Item, act: DetailsActions): void {
  const into: HTMLElement[] = [];
  const out: HTMLElement[] = [];
  const isCall = item.table === 'calls';
  for (let e = 0; e < t.edges.count; e++) {
    const kind = EDGE_KINDS[t.edges.kind[e]];
    const from: Item = { table: edgeFromIsCall(t, e) ? 'calls' : 'ops', id: t.edges.from[e] };
    const to: Item = { table: edgeToIsCall(t, e) ? 'calls' : 'ops', id: t.edges.to[e] };
    if (to.id === item.id && (to.table === 'calls') === isCall)
      into.push(el('li', {}, `${kind} from `, link(t, from, act)));
    if (from.id === item.id && (from.table === 'calls') === isCall)
      out.push(el('li', {}, `${kind} to `, link(t, to, act)));
  }
  const list = (items: HTMLElement[]) => {
    const shown = items.slice(0, MAX_LISTED);
    if (items.length > MAX_LISTED) shown.push(el('li', { class: 'hint' }, `and ${items.length - MAX_LISTED} more`));
    return el('ul', { class: 'deps' }, ...shown);
  };
  if (into.length) box.append(el('h3', {}, 'Depends on'), list(into));
  if (out.length) box.append(el('h3', {}, 'Needed by'), list(out));
}
