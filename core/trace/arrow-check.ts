// The checks the JSON reader makes row by row (json-read.ts), made over whole columns for traces
// read from a columnar file: every id in range, every lane of the right kind, every time finite.
import { ImportError } from '../import/scan';
import { EDGE_KINDS, isFrameLine, RELEASED_UNKNOWN, type Trace } from './model';

const fail = (detail: string): never => {
  throw new ImportError(detail);
};

const MAX = Number.MAX_SAFE_INTEGER;
/** A time or size: finite, not negative, exact as a double. */
const isAmount = (v: number): boolean => v >= 0 && v <= MAX;
const LAUNCH = EDGE_KINDS.indexOf('launch');
const RELEASE = EDGE_KINDS.indexOf('release');

export function checkColumns(t: Trace): void {
  const lanes = t.lanes.length;
  const isThread = t.lanes.map((l) => l.kind === 'thread');
  const isStream = t.lanes.map((l) => l.kind === 'stream');
  const c = t.calls;
  const o = t.ops;
  const at = (table: string, i: number, col: string) => `${table} row ${i}, ${col}`;
  for (let i = 0; i < c.count; i++) {
    if (!(c.lane[i] < lanes && isThread[c.lane[i]]))
      fail(`${at('calls', i, 'lane')}: ${c.lane[i]}; expected the id of a thread lane (0 to ${lanes - 1})`);
    const begin = c.begin[i];
    const end = c.end[i];
    if (!isAmount(begin)) fail(`${at('calls', i, 'begin')}: ${begin}; expected a time from 0 to 2^53 - 1`);
    if (!isAmount(end) || end < begin)
      fail(`${at('calls', i, 'end')}: ${end}; expected a time from begin (${begin}) to 2^53 - 1`);
    const blocked = c.blockedNs[i];
    if (!(isAmount(blocked) && blocked <= end - begin))
      fail(`${at('calls', i, 'blockedNs')}: ${blocked}; expected 0 to the call's length (${end - begin})`);
    const s = c.stream[i];
    if (s !== -1 && !(s >= 0 && s < lanes && isStream[s]))
      fail(`${at('calls', i, 'stream')}: ${s}; expected -1 or the id of a stream lane`);
    const r = c.releasedBy[i];
    if (!(r >= RELEASED_UNKNOWN && r < o.count))
      fail(`${at('calls', i, 'releasedBy')}: ${r}; expected -2, -1 or an op id from 0 to ${o.count - 1}`);
    const u = c.unblockNs[i];
    if (u === u && !isAmount(u)) fail(`${at('calls', i, 'unblockNs')}: ${u}; expected null or 0 to 2^53 - 1`);
    if (!(c.value[i] !== Infinity && c.value[i] !== -Infinity))
      fail(`${at('calls', i, 'value')}: ${c.value[i]}; expected null or a finite number`);
    if (!isAmount(c.bytes[i])) fail(`${at('calls', i, 'bytes')}: ${c.bytes[i]}; expected 0 to 2^53 - 1`);
    if (c.step[i] < -1) fail(`${at('calls', i, 'step')}: ${c.step[i]}; expected -1 or a step index`);
    if (c.line[i] < 0 || c.column[i] < 0)
      fail(`${at('calls', i, 'line')}: ${c.line[i]}:${c.column[i]}; expected a line and column of 0 or more`);
    if (!(c.site[i] >= 0 && c.site[i] <= t.sites.length))
      fail(`${at('calls', i, 'site')}: ${c.site[i]}; expected 0 (none) to ${t.sites.length}, the number of call sites`);
  }
  for (let i = 0; i < o.count; i++) {
    const lane = t.lanes[o.lane[i]];
    if (!lane || lane.kind === 'thread')
      fail(
        `${at('ops', i, 'lane')}: ${o.lane[i]}; expected the id of a stream or copy engine lane (0 to ${lanes - 1})`,
      );
    const start = o.start[i];
    const end = o.end[i];
    if (!isAmount(start)) fail(`${at('ops', i, 'start')}: ${start}; expected a time from 0 to 2^53 - 1`);
    if (!isAmount(end) || end < start)
      fail(`${at('ops', i, 'end')}: ${end}; expected a time from start (${start}) to 2^53 - 1`);
    if (!(o.call[i] >= -1 && o.call[i] < c.count))
      fail(`${at('ops', i, 'call')}: ${o.call[i]}; expected -1 or a call id from 0 to ${c.count - 1}`);
    if (!isAmount(o.bytes[i])) fail(`${at('ops', i, 'bytes')}: ${o.bytes[i]}; expected 0 to 2^53 - 1`);
    const ts = o.truthStart[i];
    const te = o.truthEnd[i];
    if (ts === ts ? !(Number.isFinite(ts) && Number.isFinite(te)) : te === te)
      fail(`${at('ops', i, 'truthStart')}: ${ts}, ${te}; expected both null or both finite`);
  }
  const e = t.edges;
  for (let i = 0; i < e.count; i++) {
    const k = e.kind[i];
    const fromCount = k === LAUNCH ? c.count : o.count;
    const toCount = k === RELEASE ? c.count : o.count;
    if (!(e.from[i] >= 0 && e.from[i] < fromCount))
      fail(
        `${at('edges', i, 'from')}: ${e.from[i]}; expected a ${k === LAUNCH ? 'call' : 'op'} id from 0 to ${fromCount - 1}`,
      );
    if (!(e.to[i] >= 0 && e.to[i] < toCount))
      fail(
        `${at('edges', i, 'to')}: ${e.to[i]}; expected a ${k === RELEASE ? 'call' : 'op'} id from 0 to ${toCount - 1}`,
      );
  }
  const a = t.accesses;
  for (let i = 0; i < a.count; i++)
    if (!(a.op[i] >= 0 && a.op[i] < o.count))
      fail(`${at('accesses', i, 'op')}: ${a.op[i]}; expected an op id from 0 to ${o.count - 1}`);
  t.findings.forEach((f, i) => checkFinding(f, i, c.count, o.count));
  t.sites.forEach(checkSite);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SEVERITIES = ['error', 'warning', 'info'];

function checkFinding(f: unknown, i: number, calls: number, ops: number): void {
  const where = `finding ${i}`;
  if (!isObj(f)) return fail(`${where}: not an object; expected a finding`);
  if (typeof f.rule !== 'string' || typeof f.message !== 'string' || !SEVERITIES.includes(f.severity as string))
    fail(`${where}: expected a rule and a message (strings) and a severity (${SEVERITIES.join(', ')})`);
  if (typeof f.kind !== 'string') f.kind = f.rule;
  for (const [key, count] of [
    ['calls', calls],
    ['ops', ops],
  ] as const) {
    const ids = f[key] ?? [];
    if (!Array.isArray(ids) || ids.some((v) => !(Number.isInteger(v) && v >= 0 && v < count)))
      fail(`${where}, ${key}: expected an array of ids from 0 to ${count - 1}`);
    f[key] = ids;
  }
}

const isFrame = (v: unknown): boolean =>
  isObj(v) && typeof v.file === 'string' && isFrameLine(v.line) && typeof v.function === 'string';

function checkSite(s: unknown, i: number): void {
  if (
    !isObj(s) ||
    !isFrame(s.frame) ||
    (s.precision !== 'line' && s.precision !== 'function') ||
    !Array.isArray(s.stack) ||
    !s.stack.every(isFrame)
  )
    fail(`call site ${i}: expected {frame: {file, line, function}, precision: "line" or "function", stack: [frames]}`);
}
