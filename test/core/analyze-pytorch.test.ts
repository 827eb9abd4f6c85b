import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import';
import { CALL_KINDS, RELEASED_UNKNOWN, TraceBuilder, isWait, str, type Trace } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';

const fixture = (name: string): Trace =>
  importPytorch(readFileSync(repoPath('test/fixtures/torch', `${name}.json`), 'utf8'));
const FIXTURES = ['seed_synchronize', 'sync_seeds', 'sync_overlap'];

test('imported traces: every host wait is explained with the releasing op the trace recorded (Stream, Context, Event Sync)', () => {
  for (const name of FIXTURES) {
    const t = fixture(name);
    const a = analyze(t);
    const expected: number[] = [];
    for (let i = 0; i < t.calls.count; i++)
      if (t.calls.kind[i] !== CALL_KINDS.indexOf('context') && isWait(t, i)) expected.push(i);
    assert.deepEqual(
      a.waits.map((w) => w.id),
      expected,
      name,
    );
    for (const w of a.waits) {
      const r = t.calls.releasedBy[w.id];
      assert.deepEqual(
        w.releasedBy === null ? RELEASED_UNKNOWN : w.releasedBy.length ? w.releasedBy[0].op : -1,
        r,
        `${name} wait ${w.id}`,
      );
      if (t.calls.context[w.id]) assert.equal(w.context, str(t, t.calls.context[w.id]));
      assert.ok(!w.rules.includes('S9'), 'a record may precede the profiled window');
    }
    const kinds = new Set(a.findings.map((f) => f.kind));
    for (const k of ['no-op-wait', 'stale-wait', 'redundant-wait'])
      assert.ok(!kinds.has(k), `${name}: ${k} needs every call of the program`);
  }
});

test('S17 hidden sync behind .item(): the DtoH copy and the stream synchronize inside aten::item', () => {
  const t = fixture('sync_overlap');
  const hidden = analyze(t).findings.filter((f) => f.kind === 'hidden-sync');
  assert.equal(hidden.length, 1);
  const [copy, sync] = hidden[0].calls;
  assert.deepEqual(
    [str(t, t.calls.name[copy]), str(t, t.calls.name[sync])],
    ['cudaMemcpyAsync', 'cudaStreamSynchronize'],
  );
  assert.match(str(t, t.calls.context[sync]), /^aten::item/);
  assert.match(hidden[0].message, /^aten::item .*cudaMemcpyAsync \(DtoH.*\) then cudaStreamSynchronize/);
  assert.equal(hidden[0].savedNs, t.calls.blockedNs[copy] + t.calls.blockedNs[sync]);
});

test('S17 hidden sync behind .cpu(): aten::to with a DtoH copy to pageable memory and a stream synchronize', () => {
  const t = fixture('sync_seeds');
  const hidden = analyze(t).findings.filter((f) => f.kind === 'hidden-sync');
  assert.equal(hidden.length, 1);
  assert.match(hidden[0].message, /^aten::to .*\(DtoH, pageable\) then cudaStreamSynchronize/);
  const pageable = analyze(t).findings.filter((f) => f.kind === 'pageable-async-copy');
  assert.ok(
    pageable.every((f) => !f.calls.includes(hidden[0].calls[0])),
    "the hidden sync's copy is reported once",
  );
});

function nonzeroLike(context: string | undefined) {
  const b = new TraceBuilder();
  const host = b.lane({ kind: 'thread', name: 'python', device: 0 });
  const s = b.lane({ kind: 'stream', name: 'stream 7', device: 0 });
  const k = b.op({ lane: s, kind: 'kernel', name: 'count_nonzero', start: 0, end: 500 });
  const c = b.call({ lane: host, kind: 'memcpy', name: 'cudaMemcpyAsync', begin: 10, end: 20, stream: s, context });
  const copy = b.op({
    lane: s,
    kind: 'memcpy',
    name: 'Memcpy DtoH (Device -> Pageable)',
    start: 500,
    end: 510,
    call: c,
    copy: 'DtoH',
    hostMemory: 'pageable',
  });
  b.call({
    lane: host,
    kind: 'streamSync',
    name: 'cudaStreamSynchronize',
    begin: 20,
    end: 515,
    stream: s,
    blockedNs: 490,
    releasedBy: copy,
    unblockNs: 5,
    context,
  });
  void k;
  return b.finish({ source: 'pytorch', clock: 'host', alignmentErrorNs: 1000 });
}

test("S17 hidden sync behind nonzero; near miss: the user's own stream synchronize is not hidden", () => {
  const hidden = analyze(nonzeroLike('aten::nonzero')).findings.filter((f) => f.kind === 'hidden-sync');
  assert.equal(hidden.length, 1);
  assert.match(hidden[0].message, /^aten::nonzero /);
  assert.equal(hidden[0].savedNs, 490);
  assert.deepEqual(
    analyze(nonzeroLike(undefined)).findings.filter((f) => f.kind === 'hidden-sync'),
    [],
  );
});
