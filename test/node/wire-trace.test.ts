// The trace as the extension posts it to a webview (node/wire-trace.ts, core/protocol WireTrace):
// every column compressed, unpacked to the same trace, and a real profile's columns a small part
// of their size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { unpackTrace, type WireTrace } from '../../core/protocol';
import { traceToJson } from '../../core/trace/json';
import { loadTraceFile } from '../../node/trace-file';
import { wireTrace } from '../../node/wire-trace';
import { repoPath } from '../helpers/paths';
import { SAMPLE, sampleTrace } from '../webview/sample';

const inflate = (bytes: Uint8Array) => new Uint8Array(inflateRawSync(bytes));
const sizes = (w: WireTrace) => {
  let packed = 0;
  for (const table of Object.values(w.tables)) for (const b of Object.values(table.columns)) packed += b.byteLength;
  return packed;
};

test('a trace posted compressed unpacks to the same trace, column for column', async () => {
  const t = sampleTrace();
  const back = unpackTrace(await wireTrace(t), inflate);
  assert.equal(traceToJson(back), traceToJson(t));
  assert.ok(Number.isNaN(back.calls.unblockNs[SAMPLE.launchP]), 'NaN survives');
  assert.ok(back.ops.start instanceof Float64Array && back.calls.releasedBy instanceof Int32Array);
});

test('a trace is compressed once: a page that reloads is sent the same bytes', async () => {
  const t = sampleTrace();
  assert.equal(await wireTrace(t), await wireTrace(t));
});

test("a real profile's columns cross to the page in under a fifth of their bytes", async () => {
  // ragged_batches' profile: 6.3 MB of columns.
  const t = await loadTraceFile(repoPath('test/fixtures/python/ragged_batches.profile.json.gz'));
  let raw = 0;
  for (const table of [t.calls, t.ops, t.edges, t.accesses])
    for (const c of Object.values(table)) if (ArrayBuffer.isView(c)) raw += c.byteLength;
  const wire = await wireTrace(t);
  assert.ok(raw > 6e6, `${raw} bytes of columns`);
  assert.ok(sizes(wire) < raw / 5, `${sizes(wire)} of ${raw} bytes`);
  assert.equal(traceToJson(unpackTrace(wire, inflate)), traceToJson(t));
});

test('an unpacked column that is a whole buffer of its size is taken as it is, not copied', async () => {
  const t = sampleTrace();
  const decoded: ArrayBufferLike[] = [];
  const back = unpackTrace(await wireTrace(t), (b) => {
    const out = inflate(b);
    decoded.push(out.buffer);
    return out;
  });
  assert.ok(decoded.includes(back.ops.start.buffer) && decoded.includes(back.calls.begin.buffer));
});
