// The saved trace's rows are written without JSON.stringify; they must read exactly as it writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowText, traceToJson } from '../../core/trace/json';
import { parseTrace } from '../../core/trace/json';
import { run } from './analyze-scenario';

test('rowText writes what JSON.stringify writes, escapes and odd numbers included', () => {
  const rows: Record<string, unknown>[] = [
    { id: 0, lane: 1, kind: 'launch', name: 'plain', begin: 0, end: 12.5 },
    { name: 'quote " backslash \\ tab \t newline \n nul \u0000 del \u007f', e: 'é ü 漢 😀' },
    { lone: '\ud800 high alone', low: 'x\udc00', pair: '\ud83d\ude00', sep: '\u2028\u2029' },
    { big: 1e21, small: 5e-7, neg: -0, nan: NaN, inf: -Infinity, gone: undefined, nothing: null, yes: true },
    { releasedBy: [3], truth: [1.5, 2], reads: ['a"b', 'c'], empty: [], source: { line: 3, column: 7 } },
    { 2: 'integer keys first', a: 1, 1: 'then in order' },
    {},
  ];
  for (const r of rows) assert.equal(rowText(r), JSON.stringify(r));
});

test('a saved trace written row by row parses back to the same trace', () => {
  const { trace } = run({
    streams: { s: {}, t: { nonBlocking: true } },
    events: { 'e "1"': {} },
    buffers: { x: { bytes: 1024 }, h: { bytes: 1024, host: 'pinned' } },
    steps: [
      { launch: 'k\\1', stream: 's', us: 10 },
      { record: 'e "1"', stream: 's' },
      { wait: 'e "1"', stream: 't' },
      { copy: 'x', to: 'h', async: true, stream: 't' },
      { eventSync: 'e "1"' },
      { deviceSync: true },
    ],
  });
  const text = traceToJson(trace);
  assert.equal(traceToJson(parseTrace(text)), text);
  const v = JSON.parse(text);
  assert.equal(text, stringified(v));
});

/** The layout traceToJson uses, with every row through JSON.stringify. */
function stringified(v: Record<string, unknown[]> & Record<string, unknown>): string {
  const rows = (k: string) => `"${k}":[` + v[k].map((r, i) => (i ? ',\n' : '\n') + JSON.stringify(r)).join('') + '],\n';
  return (
    `{"format":${JSON.stringify(v.format)},"version":${v.version},\n"meta":${JSON.stringify(v.meta)},\n` +
    `"lanes":${JSON.stringify(v.lanes)},\n${rows('calls')}${rows('ops')}${rows('edges')}"findings":${JSON.stringify(v.findings)}}\n`
  );
}
