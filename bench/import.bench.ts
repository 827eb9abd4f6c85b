// Import throughput and memory: generated Kineto-like traces of 100 MB and 1 GB (bench/tmp/, made
// once and reused), imported in child processes so that each peak RSS is its own. The yardstick is
// reading the same file and JSON.parse of its text, run alternately with the import (the native
// reader where it is built), so that both meet the same load of a shared machine; medians. The
// JavaScript reader, the fallback, is measured as before.
// Run: npm run bench:import  (writes bench/results/import.md)
import { spawnSync, execSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { decodeUtf8, loadAnyTrace } from '../cli/load-trace';
import { createPytorchImporter } from '../core/import';
import { analyze } from '../core/analyze';
import { importTraceStream } from '../node/trace-file';
import { kinetoAddon, useNativeGraph } from '../node/native-kineto';
import { median } from '../core/stats';
import { traceJsonChunks } from '../core/trace/json';
import { generateKineto } from './import.generate';
import { main as cliMain } from '../cli/main';
import { createGzip } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const root = join(__dirname, '..', '..');
const tmp = join(root, 'bench', 'tmp');
const MB = 1e6;

interface Sample {
  ms: number;
  cpuMs: number;
  maxRssMB: number;
  calls: number;
  ops: number;
}

function ensure(name: string, bytes: number): string {
  const path = join(tmp, name);
  if (existsSync(path)) return path;
  mkdirSync(tmp, { recursive: true });
  const part = path + '.part';
  const fd = openSync(part, 'w');
  // About 760 bytes of JSON per step (see import.generate.ts).
  for (const piece of generateKineto({ steps: Math.round(bytes / 760), streams: 4, syncEvery: 10 }, 8 << 20))
    writeSync(fd, piece);
  closeSync(fd);
  renameSync(part, path);
  return path;
}

/** A gzipped trace of about `bytes` of JSON (level 1, as a profiler's writer would), made once. */
async function ensureGz(name: string, bytes: number): Promise<string> {
  const path = join(tmp, name);
  if (existsSync(path)) return path;
  mkdirSync(tmp, { recursive: true });
  const part = path + '.part';
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(part);
  gz.pipe(out);
  for (const piece of generateKineto({ steps: Math.round(bytes / 760), streams: 4, syncEvery: 10 }, 8 << 20))
    if (!gz.write(piece)) await once(gz, 'drain');
  gz.end();
  await once(out, 'close');
  renameSync(part, path);
  return path;
}

/** A gzip file's uncompressed size, from its last four bytes: exact under 4 GiB. */
function gzipTrailerSize(path: string): number {
  const fd = openSync(path, 'r');
  const tail = Buffer.alloc(4);
  readSync(fd, tail, 0, 4, statSync(path).size - 4);
  closeSync(fd);
  return tail.readUInt32LE(0);
}

async function child(
  mode: string,
  path: string,
): Promise<Omit<Sample, 'ms' | 'cpuMs'> & { ms?: number; cpuMs?: number }> {
  const rss = () => process.resourceUsage().maxRSS / 1024;
  if (mode === 'save') {
    // The 1 GB import saved as .syncscope.json: larger than V8's largest string, so it must stream.
    const t = await loadAnyTrace(path);
    const out = path.replace(/\.json$/, '.syncscope.json');
    const fd = openSync(out + '.part', 'w');
    for (const piece of traceJsonChunks(t)) writeSync(fd, piece);
    closeSync(fd);
    renameSync(out + '.part', out);
    return { maxRssMB: rss(), calls: t.calls.count, ops: t.ops.count };
  }
  if (mode === 'parse') {
    const text = readFileSync(path, 'utf8');
    const v = timed(() => JSON.parse(text) as { traceEvents: unknown[] });
    return { ...v.time, maxRssMB: rss(), calls: v.value.traceEvents.length, ops: 0 };
  }
  if (mode === 'parse-file') {
    const v = timed(() => parseFileInPieces(path));
    return { ...v.time, maxRssMB: rss(), calls: v.value, ops: 0 };
  }
  if (mode === 'js') {
    // The JavaScript reader alone, from the file, as loadAnyTrace runs it where the native one is not built.
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const t = await importTraceStream(createReadStream(path, { highWaterMark: 4 << 20 }), path, false);
    const c = process.cpuUsage(c0);
    const time = { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
    return { ...time, maxRssMB: rss(), calls: t.calls.count, ops: t.ops.count };
  }
  if (mode === 'analyze') {
    // The analysis that report, check and the editor run after the import, on its own.
    const t = await loadAnyTrace(path);
    const v = timed(() => analyze(t));
    return { ...v.time, maxRssMB: rss(), calls: t.calls.count, ops: t.ops.count };
  }
  if (mode === 'import-analyze') {
    // What report, check and the editor do with a trace: the import, then the analysis.
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const t = await loadAnyTrace(path);
    analyze(t);
    const c = process.cpuUsage(c0);
    const time = { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
    return { ...time, maxRssMB: rss(), calls: t.calls.count, ops: t.ops.count };
  }
  if (mode === 'cli-report') {
    // `syncscope report <file>` as a user runs it: import, analysis, overview and the printed report.
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let printed = 0;
    const code = await cliMain(['report', path], {
      stdout: (text) => void (printed += text.length),
      stderr: (text) => void process.stderr.write(text),
      cwd: process.cwd(),
    });
    if (code !== 0 && code !== 1) throw new Error(`syncscope report exited with ${code}`);
    const c = process.cpuUsage(c0);
    return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, maxRssMB: rss(), calls: printed, ops: 0 };
  }
  if (mode === 'memory' || mode === 'memory-portable') {
    const bytes = readFileSync(path);
    // The first pass over freshly read pages costs ~2 ms per MB here (page-table set-up); JSON.parse's
    // text had that pass when it was decoded, before its clock started, so these bytes get it too.
    isAscii(bytes);
    const v = timed(() => {
      // loadAnyTrace's decoder, or the portable TextDecoder that the importer uses by itself.
      const imp = createPytorchImporter(mode === 'memory' ? { decodeUtf8 } : {});
      for (let at = 0; at < bytes.length; at += 4 << 20) imp.push(bytes.subarray(at, at + (4 << 20)));
      return imp.finish();
    });
    return { ...v.time, maxRssMB: rss(), calls: v.value.calls.count, ops: v.value.ops.count };
  }
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const t = await loadAnyTrace(path);
  const c = process.cpuUsage(c0);
  return {
    ms: performance.now() - t0,
    cpuMs: (c.user + c.system) / 1000,
    maxRssMB: rss(),
    calls: t.calls.count,
    ops: t.ops.count,
  };
}

/** Texts handed to one JSON.parse: V8's largest string is 512 MB, so a 1 GB trace is parsed in pieces. */
const PIECE = 256 << 20;

/**
 * Reads the file and JSON.parses its text, returning the number of events: at once where V8 can
 * hold the text in one string, else the root and the events in texts of at most PIECE bytes, cut
 * where one event ends (the generated traces end each event with a line `  },`). Each piece is
 * decoded with the brackets of an array around it, written over the bytes beside it, so that no
 * text is joined or copied again.
 */
function parseFileInPieces(path: string): number {
  if (statSync(path).size < PIECE * 2)
    return (JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: unknown[] }).traceEvents.length;
  const bytes = readFileSync(path);
  const open = bytes.indexOf('[', bytes.indexOf('"traceEvents"'));
  const close = bytes.lastIndexOf(']');
  JSON.parse(bytes.toString('utf8', 0, open + 1) + bytes.toString('utf8', close));
  let events = 0;
  for (let from = open + 1; from < close;) {
    let to = close;
    if (to - from > PIECE) {
      const cut = bytes.lastIndexOf('\n  },\n', from + PIECE);
      if (cut <= from) throw new Error(`no event ends in the ${PIECE} bytes from ${from}`);
      to = cut + 4;
    }
    bytes[from - 1] = 0x5b; // '[' over the '[' or ',' before the first event
    bytes[to] = 0x5d; // ']' over the ',' or ']' after the last
    events += (JSON.parse(bytes.toString('utf8', from - 1, to + 1)) as unknown[]).length;
    from = to + 1;
  }
  return events;
}

/** Wall and CPU time: on a shared machine CPU time is the steadier of the two. */
function timed<T>(f: () => T): { value: T; time: { ms: number; cpuMs: number } } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, time: { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 } };
}

/** `env`: more of the child's environment (SYNCSCOPE_PARSE_THREADS, to read with one thread). */
function run(mode: string, path: string, env: Record<string, string> = {}): Sample {
  // JSON.parse of 1 GB of events makes more than 4 GB of objects.
  const heap = mode === 'parse-file' ? 12288 : 4096;
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heap}`, __filename, 'child', mode, path], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(`${mode} ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

/** Runs the import and the yardstick alternately, `rounds` times each. */
function alternately(path: string, rounds: number, importMode: string): { imports: Sample[]; parses: Sample[] } {
  const imports: Sample[] = [];
  const parses: Sample[] = [];
  for (let i = 0; i < rounds; i++) {
    imports.push(run(importMode, path));
    parses.push(run('parse-file', path));
  }
  return { imports, parses };
}

const med = (s: readonly Sample[], key: 'ms' | 'cpuMs' | 'maxRssMB') => median(s.map((x) => x[key]));
const rate = (s: readonly Sample[], mb: number, key: 'ms' | 'cpuMs') => mb / (med(s, key) / 1000);

async function main(): Promise<void> {
  const small = ensure('kineto-100mb.json', 100 * MB);
  const big = ensure('kineto-1gb.json', 1000 * MB);
  const smallMB = statSync(small).size / MB;
  const bigMB = statSync(big).size / MB;
  const native = kinetoAddon();
  // Without the native reader, loadAnyTrace is the JavaScript reader: the comparison says which ran.
  const reader = native.addon ? 'native reader' : `JavaScript reader (${native.reason})`;
  const vs100 = alternately(small, 5, 'file');
  const vs1g = alternately(big, 3, 'file');
  const analysis = [run('analyze', small), run('analyze', small), run('analyze', small)];
  const withAnalysis = alternately(small, 5, 'import-analyze');
  const withAnalysis1g = alternately(big, 3, 'import-analyze');
  // The native reader parses on every core; one parsing thread shows what the others give.
  const oneThread = native.addon ? [1, 2, 3].map(() => run('file', small, { SYNCSCOPE_PARSE_THREADS: '1' })) : [];

  const rounds = 5;
  const parse: Sample[] = [];
  const memory: Sample[] = [];
  const portable: Sample[] = [];
  const js: Sample[] = [];
  for (let i = 0; i < rounds; i++) {
    parse.push(run('parse', small));
    memory.push(run('memory', small));
    portable.push(run('memory-portable', small));
    js.push(run('js', small));
  }
  const jsBig = run('js', big);
  // The CLI on a 2 GB .json.gz, start to report: its uncompressed size from the gzip trailer (under 4 GiB).
  const huge = await ensureGz('kineto-2000mb.json.gz', 2000 * MB);
  const hugeMB = gzipTrailerSize(huge) / MB;
  const hugeReport = run('cli-report', huge);
  const bigReport = run('cli-report', big);
  const saved = big.replace(/\.json$/, '.syncscope.json');
  if (!existsSync(saved)) run('save', big);
  const savedMB = statSync(saved).size / MB;
  const savedLoad = run('file', saved);

  const ratio = (v: { imports: Sample[]; parses: Sample[] }, key: 'ms' | 'cpuMs') =>
    med(v.parses, key) / med(v.imports, key);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const row = (what: string, s: readonly Sample[], mb: number) =>
    `| ${what} | ${mb.toFixed(0)} | ${(med(s, 'ms') / 1000).toFixed(2)} | ${(med(s, 'cpuMs') / 1000).toFixed(2)} | ${rate(s, mb, 'ms').toFixed(0)} | ${med(s, 'maxRssMB').toFixed(0)} |`;
  const vsRows = (v: { imports: Sample[]; parses: Sample[] }, mb: number, size: string) => [
    row(`import (loadAnyTrace, ${reader}), ${size}`, v.imports, mb),
    row(`read the file + JSON.parse of its text, ${size}`, v.parses, mb),
  ];
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    /* not a checkout */
  }
  const date = new Date().toISOString().slice(0, 10);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(', ');
  const text = [
    `# Import benchmark, ${date}`,
    '',
    `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`,
    `- Commit: ${commit} (plus the working tree at the time)`,
    `- Input: generated Kineto-like traces (bench/import.generate.ts), ${vs1g.imports[0].calls + vs1g.imports[0].ops} calls and ops in the 1 GB file`,
    `- Method: each measurement in its own child process, timed from the call to its result (the file read included, loading the program not); peak RSS from process.resourceUsage().maxRSS. CPU time is user + system of the process (V8's GC and compiler threads, and the native reader's thread, included).`,
    '',
    '## The import against reading the file and JSON.parse of its text',
    '',
    `The import (${reader}) and the yardstick run one after the other, five times on 100 MB and three on 1 GB; medians. ` +
      'The yardstick reads the file and JSON.parses its text: in pieces of at most 256 MB for the 1 GB file, ' +
      'cut where an event ends, since V8 holds no string over 512 MB.',
    '',
    '| what | MB | s (wall) | s (CPU) | MB/s (wall) | peak RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...vsRows(vs100, smallMB, '100 MB'),
    ...vsRows(vs1g, bigMB, '1 GB'),
    row(
      'analyze() of the imported 100 MB trace (report, check and the editor run it after the import)',
      analysis,
      smallMB,
    ),
    row(`import + analyze() (loadAnyTrace, ${reader}, then analyze), 100 MB`, withAnalysis.imports, smallMB),
    row(
      'read the file + JSON.parse of its text, 100 MB (run alternately with import + analyze())',
      withAnalysis.parses,
      smallMB,
    ),
    row(`import + analyze() (loadAnyTrace, ${reader}, then analyze), 1 GB`, withAnalysis1g.imports, bigMB),
    row(
      'read the file + JSON.parse of its text, 1 GB (run alternately with import + analyze())',
      withAnalysis1g.parses,
      bigMB,
    ),
    ...(oneThread.length
      ? [
          row(
            `import (loadAnyTrace, ${reader}) with one parsing thread (SYNCSCOPE_PARSE_THREADS=1), 100 MB`,
            oneThread,
            smallMB,
          ),
        ]
      : []),
    '',
    `Import / (read + JSON.parse), 100 MB: ${ratio(vs100, 'ms').toFixed(2)}x as fast by wall time, ${ratio(vs100, 'cpuMs').toFixed(2)}x by CPU time.`,
    `Import / (read + JSON.parse), 1 GB: ${ratio(vs1g, 'ms').toFixed(2)}x by wall time, ${ratio(vs1g, 'cpuMs').toFixed(2)}x by CPU time.`,
    `(Import + analyze()) / (read + JSON.parse), 100 MB: ${ratio(withAnalysis, 'ms').toFixed(2)}x by wall time, ${ratio(withAnalysis, 'cpuMs').toFixed(2)}x by CPU time.`,
    `(Import + analyze()) / (read + JSON.parse), 1 GB: ${ratio(withAnalysis1g, 'ms').toFixed(2)}x by wall time, ${ratio(withAnalysis1g, 'cpuMs').toFixed(2)}x by CPU time.`,
    `Targets: >= 3x on 100 MB: ${met(ratio(vs100, 'ms') >= 3)} (wall), ${met(ratio(vs100, 'cpuMs') >= 3)} (CPU); >= 3x on 1 GB: ${met(ratio(vs1g, 'ms') >= 3)} (wall), ${met(ratio(vs1g, 'cpuMs') >= 3)} (CPU); ` +
      `>= 3x with analysis on 100 MB: ${met(ratio(withAnalysis, 'ms') >= 3)} (wall), ${met(ratio(withAnalysis, 'cpuMs') >= 3)} (CPU); ` +
      `>= 3x with analysis on 1 GB: ${met(ratio(withAnalysis1g, 'ms') >= 3)} (wall), ${met(ratio(withAnalysis1g, 'cpuMs') >= 3)} (CPU); ` +
      `peak RSS of the 1 GB import within 1.5x its size: ${met(med(vs1g.imports, 'maxRssMB') <= 1.5 * bigMB)}.`,
    `Load average when this part ended: ${load()} on ${cpus().length} cores.`,
    '',
    '## The CLI on large traces',
    '',
    '`syncscope report <file>` as a user runs it (import, analysis, overview, the report printed), one run each.',
    '',
    '| what | MB | s (wall) | s (CPU) | MB/s (wall) | peak RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('syncscope report, 1 GB .json', [bigReport], bigMB),
    row(`syncscope report, 2 GB .json.gz (${(statSync(huge).size / MB).toFixed(0)} MB gzipped)`, [hugeReport], hugeMB),
    '',
    `Peak RSS within 1.5x the uncompressed size: ${met(bigReport.maxRssMB <= 1.5 * bigMB)} (1 GB), ${met(hugeReport.maxRssMB <= 1.5 * hugeMB)} (2 GB .json.gz).`,
    '',
    '## The JavaScript reader (where the native one is not built), and saved traces',
    '',
    `Median of ${rounds} runs for 100 MB, one run for 1 GB.`,
    '',
    '| what | MB | s (wall) | s (CPU) | MB/s (wall) | peak RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('JSON.parse, 100 MB (text already in memory)', parse, smallMB),
    row('JavaScript reader from memory, 4 MiB chunks, 100 MB', memory, smallMB),
    row("the same with TextDecoder instead of Node's decoder", portable, smallMB),
    row('JavaScript reader from the file, 100 MB', js, smallMB),
    row('JavaScript reader from the file, 1 GB', [jsBig], bigMB),
    row('load that trace saved as .syncscope.json (loadAnyTrace)', [savedLoad], savedMB),
    '',
    `JavaScript reader / JSON.parse speed on 100 MB: ${(rate(memory, smallMB, 'ms') / rate(parse, smallMB, 'ms')).toFixed(2)}x by wall time, ` +
      `${(rate(memory, smallMB, 'cpuMs') / rate(parse, smallMB, 'cpuMs')).toFixed(2)}x by CPU time (target >= 0.5x).`,
    `Load average at the end: ${load()} on ${cpus().length} cores.`,
    '',
  ].join('\n');
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'import.md'), text);
  process.stdout.write(text);
}

if (process.argv[2] === 'child') {
  // As the CLI and the editor do: the happens-before graph built natively where the addon loads.
  useNativeGraph();
  child(process.argv[3], process.argv[4]).then((s) => process.stdout.write(JSON.stringify(s)));
} else {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
