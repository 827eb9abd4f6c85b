// The native Kineto reader against the JavaScript one, which stays the reference: every PyTorch
// fixture, generated traces, hostile inputs of the fuzz suite and inputs made to hit each rule of
// the reader give the same Trace field by field, or the same error at the same line and column.
// The native reader never reads what the JavaScript one rejects: it declines, and the JavaScript
// reader reads the file.
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { buildPytorchTrace } from '../../core/import/pytorch';
import { EDGE_KINDS, RELEASE_HOW, RELEASED_NONE, RELEASED_UNKNOWN, type Trace } from '../../core/trace/model';
import { sniffFormat } from '../../core/import';
import {
  decompressedLimit,
  importTraceBytes,
  importTraceStream,
  isGzip,
  loadTraceFile,
  traceHeadOfBytes,
} from '../../node/trace-file';
import { kinetoAddon, nativeVerdict, readKinetoNatively } from '../../node/native-kineto';
import { generateKineto } from '../../bench/import.generate';
import { generate } from '../fuzz/generate';
import { repoPath } from '../helpers/paths';

const built = kinetoAddon();
// CI builds the addon (scripts/setup-native.sh): there a missing one is a failure, not a skip.
const skip = built.addon || process.env.CI === 'true' ? false : `${built.reason}; run npm run build:native`;

type Outcome = { trace: Trace } | { error: string };

/** The JavaScript reader alone, as loadTraceFile runs it when the native one declines. */
async function javascriptReader(bytes: Uint8Array, name: string): Promise<Outcome> {
  try {
    const chunks = [];
    for (let at = 0; at < bytes.length; at += 4 << 20) chunks.push(Buffer.from(bytes.subarray(at, at + (4 << 20))));
    return {
      trace: await importTraceStream(Readable.from(chunks), name, isGzip(bytes), undefined, undefined, bytes.length),
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The native reader alone, on what the import gives it (PyTorch traces): its Trace, or undefined where it declines the bytes. */
async function nativeReader(bytes: Uint8Array): Promise<Trace | undefined> {
  if (sniffFormat(await traceHeadOfBytes(bytes)) !== 'pytorch') return undefined;
  const staged = await readKinetoNatively(bytes, { gzip: isGzip(bytes), limit: decompressedLimit(bytes.length) });
  return staged && buildPytorchTrace(staged);
}

/** What the import gives, natively where it can: the Trace or the error's message. */
async function importOf(bytes: Uint8Array, name: string): Promise<Outcome> {
  try {
    return { trace: await importTraceBytes(bytes, name) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * Both readers on `bytes`: the import's outcome equals the JavaScript reader's, and where the
 * native reader read the bytes its Trace is the same. Returns whether the native reader read them.
 */
async function sameBothWays(bytes: Uint8Array, name: string): Promise<boolean> {
  const reference = await javascriptReader(bytes, name);
  const native = await nativeReader(bytes);
  if (native) {
    assert.ok(
      'trace' in reference,
      `${name}: the native reader read what the JavaScript one rejects: ${JSON.stringify(reference)}`,
    );
    assert.deepStrictEqual(native, reference.trace, `${name}: the readers' traces differ`);
  }
  assert.deepStrictEqual(
    await importOf(bytes, name),
    reference,
    `${name}: the import differs from the JavaScript reader`,
  );
  return native !== undefined;
}

const fixtures = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return fixtures(p);
    return /\.json(\.gz)?$/.test(f) ? [p] : [];
  });

test('every PyTorch fixture reads natively into the Trace the JavaScript reader makes', { skip }, async () => {
  const files = fixtures(repoPath('test/fixtures/torch'));
  assert.ok(files.length >= 28, `${files.length} fixtures`);
  for (const file of files) {
    assert.equal(await nativeVerdict(file, isGzip(readFileSync(file).subarray(0, 2)), 1e12), undefined, file);
    assert.ok(await sameBothWays(readFileSync(file), file), file);
    // From the file itself, as the CLI and the editor read it.
    const reference = await javascriptReader(readFileSync(file), file);
    assert.deepStrictEqual({ trace: await loadTraceFile(file) }, reference, file);
  }
});

test('hostile inputs of the fuzz suite: the same Trace or the same error', { skip }, async () => {
  let native = 0;
  const seeds = Number(process.env.KINETO_SEEDS ?? 120);
  for (let seed = 1; seed <= seeds; seed++) {
    const input = generate('pytorch', seed, { maxBytes: 1 << 20 });
    if (await sameBothWays(input.bytes, input.name)) native++;
  }
  assert.ok(native > seeds / 4, `${native} of ${seeds} read natively`);
});

/** A trace of these events (JSON texts), with root fields before the events. */
const traceOf = (events: string[], before = '"schemaVersion":1,'): string =>
  `{${before}"traceEvents":[${events.join(',')}]}`;
const X = (fields: string) => `{"ph":"X","pid":1,"tid":1,"ts":100.5,"dur":2,${fields}}`;
const launch = (corr: number, more = '') =>
  X(`"cat":"cuda_runtime","name":"cudaLaunchKernel","args":{"correlation":${corr}}${more}`);
const kernel = (corr: number, args = '') =>
  `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":101,"dur":3,"args":{"device":0,"stream":7,"correlation":${corr}${args}}}`;
/** A GPU op of `cat` on stream `stream` of device 0. */
const op = (cat: string, name: string, corr: number, stream: number, ts: number, dur: number) =>
  `{"ph":"X","cat":"${cat}","name":"${name}","pid":0,"tid":${stream},"ts":${ts},"dur":${dur},"args":{"device":0,"stream":${stream},"correlation":${corr}}}`;
/** A CUDA runtime call on thread 1 at `ts` for `dur` microseconds. */
const at = (ts: number, dur: number, name: string, corr: number) =>
  `{"ph":"X","cat":"cuda_runtime","name":"${name}","pid":1,"tid":1,"ts":${ts},"dur":${dur},"args":{"correlation":${corr}}}`;
/** Kineto's cuda_sync event for the call of correlation id `corr`. */
const sync = (corr: number, args: string) =>
  `{"ph":"X","cat":"cuda_sync","name":"sync","pid":0,"tid":7,"ts":190,"dur":1,"args":{"correlation":${corr},${args}}}`;

/** Traces the native reader reads itself, each made to meet one of the JavaScript reader's rules. */
const READ_NATIVELY: Record<string, string> = {
  'a key given twice keeps its last value': traceOf([
    '{"ph":"M","ph":"X","cat":"kernel","cat":"cpu_op","name":"a","name":"b","pid":1,"tid":1,"ts":1,"ts":2,"dur":1,"args":{"correlation":3},"args":[]}',
    launch(4),
  ]),
  'escaped keys and names, and names beyond ASCII': traceOf([
    '{"p\\u0068":"X","c\\u0061t":"cpu_op","name":"a\\"b\\\\c\\u00e9\\ud83d\\ude00 é 𝄞 \\/","pid":1,"tid":1,"ts":1,"dur":9}',
    launch(1),
    kernel(1),
  ]),
  'pids and tids of -0.0, fractions and odd types': traceOf([
    launch(1).replace('"pid":1', '"pid":-0.0'),
    X('"cat":"cpu_op","name":"a","tid":1.5'),
    X('"cat":"cpu_op","name":"b"').replace('"pid":1', '"pid":"1"'),
    X('"cat":"cpu_op","name":"c"').replace('"tid":1', '"tid":null'),
    kernel(1).replace('"device":0', '"device":-0e0'),
    kernel(2, ',"device":"0"'),
  ]),
  'grid and block products past 2^32, negative and of things that are not numbers': traceOf([
    launch(1),
    kernel(1, ',"grid":[65536,65536,3],"block":[-1,1,1]'),
    kernel(2, ',"grid":[2,"x",null,[4],{"a":1}],"block":5.7'),
    kernel(3, ',"grid":1e300,"block":[1e200,1e200]'),
    kernel(4, ',"grid":"8","block":[]'),
  ]),
  'categories in capitals, named like Object properties, unknown ones counted in order': traceOf([
    X('"cat":"CUDA_Runtime","name":"cudaStreamSynchronize","args":{"correlation":9}'),
    X('"cat":"constructor","name":"a"'),
    X('"cat":"__proto__","name":"a"'),
    X('"cat":"toString","name":"a"'),
    X('"cat":"constructor","name":"a"'),
    X('"cat":true,"name":"a"'),
    X('"cat":null,"name":"a"'),
    X('"cat":{"a":1},"name":"a"'),
    X('"name":"no category"'),
    X('"cat":"Ac2g","name":"skipped"'),
  ]),
  'durations null, missing and -0; times at 2^53 and past it, and not numbers': traceOf([
    X('"cat":"cpu_op","name":"null dur"').replace('"dur":2', '"dur":null'),
    X('"cat":"cpu_op","name":"no dur"').replace(',"dur":2', ''),
    X('"cat":"cpu_op","name":"-0 dur"').replace('"dur":2', '"dur":-0.0'),
    X('"cat":"cpu_op","name":"negative"').replace('"dur":2', '"dur":-1'),
    X('"cat":"cpu_op","name":"far"').replace('"ts":100.5', '"ts":9007199254740992'),
    X('"cat":"cpu_op","name":"too far"').replace('"ts":100.5', '"ts":9007199254740994'),
    X('"cat":"cpu_op","name":"text"').replace('"ts":100.5', '"ts":"100"'),
    X('"cat":"cpu_op","name":"object"').replace('"ts":100.5', '"ts":{"v":1}'),
    X('"cat":"cpu_op","name":"big"').replace('"dur":2', '"dur":18446744073709551615'),
  ]),
  'times that round at halves, both ways': traceOf([
    X('"cat":"cpu_op","name":"a"').replace('"ts":100.5', '"ts":0.0005').replace('"dur":2', '"dur":0.0025'),
    X('"cat":"cpu_op","name":"b"').replace('"ts":100.5', '"ts":-0.0005').replace('"dur":2', '"dur":0.0015'),
    X('"cat":"cpu_op","name":"c"').replace('"ts":100.5', '"ts":-0.0015'),
    X('"cat":"cpu_op","name":"d"').replace('"ts":100.5', '"ts":5347724402146.6555'),
    X('"cat":"cpu_op","name":"e"').replace('"ts":100.5', '"ts":1e-7'),
  ]),
  'args that are arrays, null or text, or given twice': traceOf([
    launch(1).replace('"args":{"correlation":1}', '"args":[1,2]'),
    launch(2).replace('"args":{"correlation":2}', '"args":null'),
    launch(3).replace('"args":{"correlation":3}', '"args":"correlation"'),
    launch(4).replace('"args":{"correlation":4}', '"args":{"correlation":5},"args":{"correlation":6,"correlation":7}'),
    kernel(7),
    kernel(5),
  ]),
  'thread names trimmed, the last one kept; metadata whose pid cannot be a lane': traceOf([
    launch(1),
    '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":" \\u00a0 main \\ufeff\\n"}}',
    '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"  later  "}}',
    '{"ph":"M","name":"thread_name","pid":null,"tid":1,"args":{"name":"never"}}',
    '{"ph":"M","name":"thread_name","pid":true,"tid":1,"args":{"name":true}}',
    '{"ph":"M","name":"thread_name","pid":{},"tid":1,"args":{"name":"never"}}',
    '{"ph":"M","name":"thread_name","tid":1,"args":{"name":"never"}}',
    '{"ph":"M","name":"thread_name","pid":2,"tid":2,"args":"main"}',
    X('"cat":"cpu_op","name":"b"').replace('"pid":1,"tid":1', '"pid":2,"tid":2'),
    '{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}}',
    '{"ph":"i","cat":"kernel","name":"instant","pid":1,"tid":1,"ts":5}',
    '{"ph":"B","cat":"cpu_op","name":"begin","pid":1,"tid":1,"ts":5}',
  ]),
  'call-site markers before and after their calls': traceOf([
    X(
      '"cat":"user_annotation","name":"syncscope.site:%7B%22stack%22%3A%5B%5B%22%2Fa%2Ftrain.py%22%2C12%2C%22loop%22%5D%5D%7D","dur":0',
    ),
    launch(1),
    X(
      '"cat":"user_annotation","name":"syncscope.after:%7B%22stack%22%3A%5B%5B%22%2Fa%2Ftrain.py%22%2C13%2C%22loop%22%5D%5D%7D","dur":0',
    ),
    X('"cat":"cpu_op","name":"syncscope.site:not a marker in a cpu_op? it is one: context"'),
    X('"cat":"cuda_runtime","name":"syncscope.site:not one in an API call"'),
  ]),
  'syncs: the kind from the name, duplicate correlation ids, lanes from syncs alone': traceOf([
    launch(1),
    kernel(1),
    X('"cat":"cuda_runtime","name":"cudaStreamSynchronize","args":{"correlation":2}'),
    '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":9,"ts":102,"dur":1,"args":{"cuda_sync_kind":null,"stream":9,"device":0,"correlation":2}}',
    '{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":102,"dur":1,"args":{"cuda_sync_kind":"Stream Sync","stream":7,"device":0,"correlation":2}}',
    '{"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":7,"ts":102,"dur":1,"args":{"cuda_sync_kind":"Event Sync","correlation":-1,"stream":3,"device":1}}',
  ]),
  'waits of each kind: events recorded and named, streams that ran nothing, copies, no syncs': traceOf([
    launch(1),
    kernel(1),
    X('"cat":"cuda_runtime","name":"cudaEventRecord","args":{"correlation":3}'),
    X('"cat":"cuda_runtime","name":"cudaStreamWaitEvent","args":{"correlation":4}'),
    sync(
      4,
      '"stream":9,"device":0,"wait_on_stream":7,"wait_on_cuda_event_id":42,"wait_on_cuda_event_record_corr_id":3',
    ),
    // An op with the wait's own correlation id: issued before the work the wait holds back.
    op('kernel', 'k3', 4, 9, 104, 1),
    launch(5),
    op('kernel', 'k2', 5, 9, 110, 20),
    at(102, 2, 'cudaEventSynchronize', 6),
    sync(6, '"device":0,"wait_on_stream":7,"wait_on_cuda_event_id":42,"wait_on_cuda_event_record_corr_id":3'),
    at(103, 2, 'cudaEventSynchronize', 7),
    sync(7, '"device":0,"wait_on_cuda_event_id":43'),
    at(111, 2, 'cudaStreamSynchronize', 8),
    sync(8, '"stream":11'),
    at(112, 20, 'cudaStreamSynchronize', 9),
    sync(9, '"stream":9,"device":0'),
    at(120, 12, 'cudaDeviceSynchronize', 10),
    at(140, 8, 'cudaMemcpyAsync', 11),
    op('gpu_memcpy', 'Memcpy DtoH (Device -> Pageable)', 11, 7, 141, 5),
    at(150, 20, 'cudaMemcpy', 12),
    op('gpu_memcpy', 'Memcpy HtoD (Pinned -> Device)', 12, 9, 160, 5),
    at(172, 1, 'cudaEventQuery', 13),
    sync(13, '"wait_on_cuda_event_id":42'),
  ]),
  'a byte order mark, CRLF line ends and tabs': '\ufeff' + traceOf([launch(1), kernel(1)]).replace(/,/g, ',\r\n\t'),
  'a bare array of events': `[${launch(1)},\n${kernel(1)}]`,
  'an empty events array, and root fields after it':
    '{"traceEvents": [ ], "traceName": "x", "deviceProperties": [{"id": 0, "name": "GPU"}]}',
  'args nested 300 deep': traceOf([X(`"cat":"cpu_op","name":"a","args":{"x":${'['.repeat(300)}${']'.repeat(300)}}`)]),
  'names that look like the end of an event': traceOf([
    launch(1),
    X('"cat":"cpu_op","name":"}, {\\"ph\\": \\"X\\"}], \\"a\\": [{"'),
    X('"cat":"cpu_op","name":"},{","args":{"x":"}]"}'),
    X('"cat":"cpu_op","name":"worker-0","args":{"x":"-0","y":[":-0,"]}'),
    kernel(1),
  ]), // Events are parsed a megabyte at a time, each run ending at a `}` followed by `,{`: names that
  // hold `},{` end most runs inside a string, and those runs are read again event by event.
  'megabytes of names that look like the end of an event': traceOf(
    Array.from({ length: 1500 }, (_, i) =>
      X(`"cat":"cpu_op","name":"a},{${'x'.repeat(2000 + (i % 7))}"`).replace('"ts":100.5', `"ts":${i * 3}`),
    ),
  ),
};

test('traces made to meet each rule of the JavaScript reader read natively into the same Trace', { skip }, async () => {
  for (const [what, text] of Object.entries(READ_NATIVELY))
    assert.ok(
      await sameBothWays(Buffer.from(text), `${what}.json`),
      `${what}: declined: ${await nativeVerdict(Buffer.from(text), false, 1e12)}`,
    );
});

/** Traces the JavaScript reader reads and the native one declines: it would have to copy JavaScript's text of numbers, its Unicode tables or its limits. */
const DECLINED: Record<string, string> = {
  'a name that is a number': traceOf([X('"cat":"cpu_op","name":12.5')]),
  'a category that is a number': traceOf([X('"cat":7,"name":"a"')]),
  'a category whose lower case only Unicode knows (the Kelvin sign)': traceOf([X('"cat":"\\u212Aernel","name":"a"')]),
  'a thread_name whose pid is text': traceOf([
    launch(1),
    '{"ph":"M","name":"thread_name","pid":"1","tid":1,"args":{"name":"main"}}',
  ]),
  'a second traceEvents array': `{"traceEvents":[${launch(1)}],"traceEvents":[${kernel(1)}]}`,
  'a number past the range of doubles': traceOf([X('"cat":"cpu_op","name":"a"').replace('"ts":100.5', '"ts":1e400')]),
  'a lone surrogate in a name': traceOf([X('"cat":"cpu_op","name":"\\ud800"')]),
  'bytes that are not UTF-8 in a name': traceOf([X('"cat":"cpu_op","name":"a\xff"')]),
  'args nested 1100 deep': traceOf([
    X(`"cat":"cpu_op","name":"a","args":{"x":${'['.repeat(1100)}${']'.repeat(1100)}}`),
  ]),
  // A call at -0 after one at 0 begins at -0 in the JavaScript reader's trace.
  'an integer written -0': traceOf([
    X('"cat":"cpu_op","name":"a"').replace('"ts":100.5', '"ts":0'),
    X('"cat":"cpu_op","name":"b"').replace('"ts":100.5', '"ts":-0'),
  ]),
  'an integer written -0 after megabytes of events': traceOf([
    ...Array.from({ length: 40000 }, (_, i) => launch(i)),
    X('"cat":"cpu_op","name":"b"').replace('"ts":100.5', '"ts":-0'),
    launch(1),
  ]),
  'an integer past 64 bits': traceOf([X('"cat":"cpu_op","name":"a","args":{"x":123456789012345678901234567890}')]),
};

/** Files the JavaScript reader rejects: the import says what it says, at the same line and column. */
const REJECTED: Record<string, string> = {
  'an empty file': '',
  'white space only': ' \n\t ',
  'not JSON': 'hello',
  'cut inside the root': '{"schemaVersion": 1, "trace',
  'cut inside an event': traceOf([launch(1), kernel(1)]).slice(0, -20),
  'cut after an event': traceOf([launch(1)]).slice(0, -2),
  'a comma after the last event': traceOf([launch(1) + ',']),
  'no comma between events': traceOf([launch(1) + ' ' + kernel(1)]),
  'text after the trace': traceOf([launch(1)]) + ' x',
  'numbers in the events array': '{"traceEvents":[1, 2]}',
  'an escaped traceEvents key': `{"trace\\u0045vents":[${launch(1)}]}`,
  'traceEvents only inside another object': `{"a":{"traceEvents":[${launch(1)}]}}`,
  'a malformed event': traceOf([launch(1), '{"ph": X}']),
  'a malformed event among many': traceOf([
    ...Array.from({ length: 2000 }, (_, i) => launch(i)),
    '{"ph":"X",}',
    launch(1),
  ]),
  'a malformed event after megabytes of events': traceOf([
    ...Array.from({ length: 40000 }, (_, i) => launch(i)),
    '{"ph":"X",}',
    ...Array.from({ length: 20000 }, (_, i) => launch(i)),
  ]),
  'a control character in a string': traceOf([X('"cat":"cpu_op","name":"a\tb"')]),
  'a malformed root': `{"a": tru, "traceEvents": [${launch(1)}]}`,
  'a comment': `{"traceEvents": [${launch(1)}] /* no */}`,
};

test('both readers settle each kind of wait as the rules say (S14, S16-S18)', { skip }, async () => {
  const bytes = Buffer.from(
    READ_NATIVELY['waits of each kind: events recorded and named, streams that ran nothing, copies, no syncs'],
  );
  const reference = await javascriptReader(bytes, 'waits.json');
  assert.ok('trace' in reference);
  for (const [reader, t] of [
    ['JavaScript', reference.trace],
    ['native', await nativeReader(bytes)],
  ] as const) {
    assert.ok(t, `${reader}: declined`);
    const c = t.calls;
    // Read by hand: times are from the first call (100.5 us); calls in time order, the waits 4 to 11;
    // ops 0 (k on stream 7), 2 (k2 on stream 9), 3 and 4 (the copies).
    const settled = (i: number) => [c.releasedBy[i], RELEASE_HOW[c.how[i]], c.blockedNs[i], c.unblockNs[i]];
    assert.deepEqual(settled(4), [0, 'exact', 2000, 0], `${reader}: event sync on a record of stream 7`);
    assert.deepEqual(
      settled(5).slice(0, 3),
      [RELEASED_UNKNOWN, 'exact', 2000],
      `${reader}: event sync without its record`,
    );
    assert.deepEqual(settled(6).slice(0, 3), [RELEASED_NONE, 'exact', 0], `${reader}: a stream that ran nothing`);
    assert.deepEqual(settled(7), [2, 'exact', 18000, 2000], `${reader}: stream sync`);
    assert.deepEqual(settled(8), [2, 'deduced', 10000, 2000], `${reader}: device sync without cuda_sync (S14)`);
    assert.deepEqual(settled(9), [3, 'exact', 6000, 2000], `${reader}: async copy to pageable memory (S17)`);
    assert.deepEqual(settled(10), [4, 'exact', 15000, 5000], `${reader}: cudaMemcpy (S18)`);
    assert.deepEqual(
      [2, 4, 5, 11].map((i) => t.strings[c.event[i]]),
      ['event 42', 'event 42', 'event 43', 'event 42'],
      `${reader}: events named`,
    );
    const edges = (kind: string) =>
      Array.from({ length: t.edges.count }, (_, i) => i)
        .filter((i) => EDGE_KINDS[t.edges.kind[i]] === kind)
        .map((i) => [t.edges.from[i], t.edges.to[i]]);
    // The wait holds back k2, the first op of stream 9 issued after it, until k (the record's work) ends.
    assert.deepEqual(edges('event'), [[0, 2]], `${reader}: event edges`);
    assert.deepEqual(
      edges('release'),
      [
        [0, 4],
        [2, 7],
        [2, 8],
        [3, 9],
        [4, 10],
      ],
      `${reader}: release edges`,
    );
  }
});

test('traces the native reader declines read as the JavaScript reader reads them', { skip }, async () => {
  for (const [what, text] of Object.entries(DECLINED)) {
    const bytes = Buffer.from(text, 'latin1');
    assert.equal(await sameBothWays(bytes, `${what}.json`), false, what);
    assert.ok('trace' in (await javascriptReader(bytes, what)), `${what}: the JavaScript reader reads it`);
  }
});

test('what the JavaScript reader rejects, the import rejects with its words, line and column', { skip }, async () => {
  for (const [what, text] of Object.entries(REJECTED)) {
    const bytes = Buffer.from(text);
    assert.equal(await sameBothWays(bytes, `${what}.json`), false, what);
    const reference = await javascriptReader(bytes, `${what}.json`);
    assert.ok('error' in reference, `${what}: the JavaScript reader rejects it`);
  }
  // One seen by hand: the file, its line and column, what is wrong and what would be valid.
  assert.deepEqual(await importOf(Buffer.from(traceOf([launch(1), '\n{"ph": X}'])), 'bad.json'), {
    error: 'bad.json:2:8: malformed trace event #1: unexpected character; a trace event is a strict JSON object',
  });
});

test(
  'generated traces, and events larger than the reader reads at once, read natively into the same Trace',
  { skip },
  async () => {
    // About 10 MB: the reader's blocks and batches end in every kind of place.
    const generated = Buffer.from([...generateKineto({ steps: 13_000, streams: 3, syncEvery: 7 })].join(''));
    assert.ok(await sameBothWays(generated, 'generated.json'));
    const big = (bytes: number, i: number) =>
      X(`"cat":"cpu_op","name":"big ${i}","args":{"pad":"${'x'.repeat(bytes)}"}`);
    const events = [
      launch(1),
      big(2 << 20, 1),
      kernel(1),
      big(6 << 20, 2),
      ...Array.from({ length: 5000 }, (_, i) => launch(i + 2)),
    ];
    assert.ok(await sameBothWays(Buffer.from(traceOf(events)), 'large events.json'));
  },
);

test('the native reader makes the same Trace with one parsing thread and with many', { skip }, async () => {
  // Runs are parsed on threads and appended in file order: the ids of strings and lanes, and the
  // runs read again after a wrong guess of their end, must not depend on which thread ends first.
  const generated = Buffer.from([...generateKineto({ steps: 6_000, streams: 5, syncEvery: 3 })].join(''));
  const misleading = Buffer.from(READ_NATIVELY['megabytes of names that look like the end of an event']);
  const before = process.env.SYNCSCOPE_PARSE_THREADS;
  try {
    for (const [bytes, name] of [
      [generated, 'generated.json'],
      [misleading, 'misleading.json'],
    ] as const) {
      const reference = await javascriptReader(bytes, name);
      for (const threads of ['1', '3', '16']) {
        process.env.SYNCSCOPE_PARSE_THREADS = threads;
        assert.deepStrictEqual(
          await nativeReader(bytes),
          'trace' in reference && reference.trace,
          `${name}, ${threads}`,
        );
      }
    }
  } finally {
    if (before === undefined) delete process.env.SYNCSCOPE_PARSE_THREADS;
    else process.env.SYNCSCOPE_PARSE_THREADS = before;
  }
});

test('an event over 64 MiB is refused as the JavaScript reader refuses it', { skip }, async () => {
  const bytes = Buffer.from(traceOf([launch(1), X(`"cat":"cpu_op","name":"${'x'.repeat(64 << 20)}"`)]));
  assert.equal(await nativeVerdict(bytes, false, 1e12), 'an event over the limit');
  // The second event begins after the 34 bytes before the array, the first event and a comma.
  assert.deepEqual(await importOf(bytes, 'huge.json'), {
    error: 'huge.json:1:153: trace event #1 is larger than 64 MiB; a trace event must be smaller than 64 MiB',
  });
});

test(
  'gzip: members one after another read natively; what Node reads and the native reader does not, or neither, reads as before',
  { skip },
  async () => {
    const text = Buffer.from(traceOf([launch(1), kernel(1)]));
    const half = text.length >> 1;
    const whole = gzipSync(text);
    assert.ok(await sameBothWays(whole, 'whole.json.gz'));
    assert.ok(
      await sameBothWays(
        Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))]),
        'two.json.gz',
      ),
    );
    assert.equal(await sameBothWays(Buffer.concat([whole, Buffer.alloc(16)]), 'zeros after.json.gz'), false);
    for (const [what, bytes] of Object.entries({
      'garbage after': Buffer.concat([whole, Buffer.from('garbage')]),
      'cut short': whole.subarray(0, whole.length - 9),
      'a wrong check': Buffer.from(whole).fill(0, whole.length - 8, whole.length - 4),
    })) {
      assert.equal(await sameBothWays(bytes, `${what}.json.gz`), false, what);
      assert.ok('error' in (await importOf(bytes, what)), what);
    }
  },
);

test(
  'progress counts the bytes read natively, to the whole file; an aborted read stops with its reason',
  { skip },
  async () => {
    const file = repoPath('test/fixtures/torch/profile/train_step.profile.json.gz');
    const seen: number[] = [];
    await loadTraceFile(file, (bytes, total) => seen.push(bytes, total));
    const size = statSync(file).size;
    assert.deepEqual(seen.slice(-2), [size, size]);
    const abort = new AbortController();
    abort.abort(new Error('closed by the user'));
    await assert.rejects(loadTraceFile(file, undefined, abort.signal), /closed by the user/);
  },
);

test('without the native reader the import reads the same, and says once that it is slower', { skip }, () => {
  const cli = repoPath('dist/cli.js');
  const file = repoPath('test/fixtures/torch/sync_seeds.json');
  const report = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [cli, 'report', file, '--json'], { encoding: 'utf8', env: { ...process.env, ...env } });
  const native = report({});
  const missing = report({ SYNCSCOPE_JSON_ADDON: repoPath('build/Release/not-built.node') });
  assert.equal(missing.status, native.status);
  assert.equal(missing.stdout, native.stdout);
  assert.equal(native.stderr, '');
  assert.equal(
    missing.stderr,
    `syncscope: the native trace reader is not built (${repoPath('build/Release/not-built.node')} is missing); PyTorch traces are read by the JavaScript reader, which is slower\n`,
  );
});
