// Import throughput and memory: generated Kineto-like traces of 100 MB and 1 GB (bench/tmp/, made
// once and reused), imported in child processes so that each peak RSS is its own. The 100 MB file
// is also parsed with a plain JSON.parse in the same run, as the yardstick.
// Run: npm run bench:import  (writes bench/results/import.md)
import { spawnSync, execSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { decodeUtf8, loadAnyTrace } from '../cli/load-trace';
import { createPytorchImporter } from '../core/import';
import { median } from '../core/stats';
import { traceJsonChunks } from '../core/trace/json';
import { generateKineto } from './import.generate';

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
    const v = timed(() => JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: unknown[] });
    return { ...v.time, maxRssMB: rss(), calls: v.value.traceEvents.length, ops: 0 };
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

/** Wall and CPU time: on a shared machine CPU time is the steadier of the two. */
function timed<T>(f: () => T): { value: T; time: { ms: number; cpuMs: number } } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, time: { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 } };
}

function run(mode: string, path: string): Sample {
  const r = spawnSync(process.execPath, ['--max-old-space-size=4096', __filename, 'child', mode, path], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${mode} ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

async function main(): Promise<void> {
  const small = ensure('kineto-100mb.json', 100 * MB);
  const big = ensure('kineto-1gb.json', 1000 * MB);
  const smallMB = statSync(small).size / MB;
  const bigMB = statSync(big).size / MB;
  const rounds = 5;
  const parse: Sample[] = [];
  const parseFile: Sample[] = [];
  const memory: Sample[] = [];
  const portable: Sample[] = [];
  const file: Sample[] = [];
  for (let i = 0; i < rounds; i++) {
    parse.push(run('parse', small));
    parseFile.push(run('parse-file', small));
    memory.push(run('memory', small));
    portable.push(run('memory-portable', small));
    file.push(run('file', small));
  }
  const huge = run('file', big);
  const saved = big.replace(/\.json$/, '.syncscope.json');
  if (!existsSync(saved)) run('save', big);
  const savedMB = statSync(saved).size / MB;
  const savedLoad = run('file', saved);
  const rate = (s: Sample[], mb: number, key: 'ms' | 'cpuMs') => mb / (median(s.map((x) => x[key])) / 1000);
  const rows = [
    ['JSON.parse, 100 MB (text already in memory)', parse, smallMB],
    ['readFileSync(utf8) + JSON.parse, 100 MB', parseFile, smallMB],
    ['import from memory, 4 MiB chunks, 100 MB', memory, smallMB],
    ["the same with TextDecoder instead of Node's decoder", portable, smallMB],
    ['import from the file (loadAnyTrace), 100 MB', file, smallMB],
    ['import from the file (loadAnyTrace), 1 GB', [huge], bigMB],
    ['load that trace saved as .syncscope.json (loadAnyTrace)', [savedLoad], savedMB],
  ] as const;
  const ratio = (key: 'ms' | 'cpuMs') => rate(memory, smallMB, key) / rate(parse, smallMB, key);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    /* not a checkout */
  }
  const date = new Date().toISOString().slice(0, 10);
  const text = [
    `# Import benchmark, ${date}`,
    '',
    `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`,
    `- Commit: ${commit} (plus the working tree at the time)`,
    `- Input: generated Kineto-like traces (bench/import.generate.ts), ${huge.calls + huge.ops} calls and ops in the 1 GB file`,
    `- Method: each measurement in its own child process; peak RSS from process.resourceUsage().maxRSS; median of ${rounds} runs for 100 MB, one run for 1 GB. CPU time is user + system of the process (V8's GC threads included).`,
    '',
    '| what | MB | MB/s (wall) | MB/s (CPU time) | peak RSS (MB) |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ([what, s, mb]) =>
        `| ${what} | ${mb.toFixed(0)} | ${rate([...s], mb, 'ms').toFixed(0)} | ${rate([...s], mb, 'cpuMs').toFixed(0)} | ${median(s.map((x) => x.maxRssMB)).toFixed(0)} |`,
    ),
    '',
    `Import / JSON.parse speed on 100 MB: ${ratio('ms').toFixed(2)}x by wall time, ${ratio('cpuMs').toFixed(2)}x by CPU time (target >= 0.5x).`,
    `From the file, both reading it: loadAnyTrace / (readFileSync + JSON.parse) = ${(rate(file, smallMB, 'cpuMs') / rate(parseFile, smallMB, 'cpuMs')).toFixed(2)}x by CPU time.`,
    `Targets: >= 100 MB/s on 100 MB: ${met(rate(memory, smallMB, 'ms') >= 100)} (wall), ${met(rate(memory, smallMB, 'cpuMs') >= 100)} (CPU time); ` +
      `>= 0.5x JSON.parse: ${met(ratio('ms') >= 0.5)} (wall), ${met(ratio('cpuMs') >= 0.5)} (CPU time); 1 GB within 3 GB peak RSS: ${met(huge.maxRssMB <= 3000)}.`,
    `Load average while it ran: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')} on ${cpus().length} cores.`,
    '',
  ].join('\n');
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'import.md'), text);
  process.stdout.write(text);
}

if (process.argv[2] === 'child') {
  child(process.argv[3], process.argv[4]).then((s) => process.stdout.write(JSON.stringify(s)));
} else {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
