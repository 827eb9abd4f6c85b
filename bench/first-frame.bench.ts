// The timeline's first frame of a real trace: from the webview receiving the Trace (typed columns,
// as the extension posts them) to the first drawn canvas frame, in headless Chromium, and on to the
// waits table and findings being filled. The trace is a saved `.syncscope` file (scale.bench.ts
// with --keep writes one) or a scenario simulated here. Writes bench/results/first-frame.md.
//   node out/bench/first-frame.bench.js [--profile] <trace.syncscope | x.scenario.json>...
// --profile records the page's CPU profile up to the first frame (bench/tmp/first-frame-<n>.cpuprofile,
// readable in Chromium's DevTools) and prints the functions that took the most time.
// Target: the first frame of a 10^7-op trace in <= 3 s.
import {
  createReadStream,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { SCHEMAS } from '../core/protocol';
import { compileScenario } from '../core/scenario/parse';
import { isScenarioPath } from '../core/scenario/path';
import { simulate } from '../core/simulate';
import { analyze } from '../core/analyze';
import type { Trace } from '../core/trace/model';
import { scenarioBudget } from '../cli/input';
import { loadTraceFile } from '../node/trace-file';
import { bundle, CHROMIUM, CHROMIUM_ARGS, ensureWebviewBundle, skipReason, until } from '../test/webview/browser';
import { repoPath } from '../test/helpers/paths';

/** What the page side (test/webview/page/first-frame.ts) measures. */
interface FirstFrame {
  ops: number;
  calls: number;
  firstFrameMs: number;
  panelsMs: number;
  waits: number;
}

const TARGET_MS = 3000;
const PROFILE = process.argv.includes('--profile');

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The webview bundled without minifying, so that a profile names its functions. */
function readableBundle(outfile: string): string {
  const esbuild = repoPath('node_modules', '.bin', 'esbuild');
  const args = ['webview/main.ts', '--bundle', '--format=iife', '--platform=browser', '--target=es2022'];
  const r = spawnSync(esbuild, [...args, '--loader:.css=empty', `--outfile=${outfile}`, '--log-level=warning'], {
    cwd: repoPath(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`esbuild failed: ${r.stderr}`);
  return outfile;
}

/** Writes the profile for DevTools and prints the functions with the most self time. */
function writeProfile(profile: Profile, base: string): void {
  writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile));
  const byNode = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, k) => {
    const f = byNode.get(id);
    const name = f ? `${f.functionName || '(anonymous)'} ${basename(f.url)}:${f.lineNumber + 1}` : '?';
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[k] ?? 0) / 1000);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
  for (const [name, ms] of top) console.log(`${ms.toFixed(0).padStart(8)} ms  ${name}`);
}

async function readInput(path: string): Promise<Trace> {
  if (!isScenarioPath(path)) return loadTraceFile(path);
  const program = compileScenario(readFileSync(path, 'utf8'), basename(path), scenarioBudget());
  const trace = simulate(program);
  trace.findings = analyze(trace, { program }).findings;
  return trace;
}

/** Writes the trace as `<base>.json` (everything but the columns) and `<base>.bin` (the columns' bytes). */
function writeForPage(trace: Trace, title: string, base: string): void {
  const fd = openSync(`${base}.bin`, 'w');
  let offset = 0;
  const tables = {} as Record<string, { count: number; columns: Record<string, [number, number]> }>;
  for (const name of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
    const table = trace[name] as unknown as Record<string, ArrayBufferView> & { count: number };
    const columns: Record<string, [number, number]> = {};
    for (const key of Object.keys(SCHEMAS[name])) {
      const v = table[key];
      writeSync(fd, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      columns[key] = [offset, v.byteLength];
      offset += v.byteLength;
    }
    tables[name] = { count: table.count, columns };
  }
  closeSync(fd);
  const { meta, lanes, strings, findings, sites } = trace;
  writeFileSync(`${base}.json`, JSON.stringify({ title, trace: { meta, lanes, strings, findings, sites }, tables }));
}

/** Serves bench/tmp over HTTP, streaming files so that a gigabyte of columns is never one buffer. */
function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const file = join(dir, basename(new URL(req.url ?? '/', 'http://x').pathname));
    try {
      const size = statSync(file).size;
      const type = file.endsWith('.html')
        ? 'text/html'
        : file.endsWith('.json')
          ? 'application/json'
          : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'content-length': size });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

async function main(): Promise<void> {
  const why = skipReason();
  if (why) return void console.log(`first-frame benchmark skipped: ${why}`);
  const inputs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (!inputs.length) throw new Error('give one or more trace or scenario files');
  ensureWebviewBundle();
  const tmp = repoPath('bench', 'tmp');
  mkdirSync(tmp, { recursive: true });
  bundle('test/webview/page/first-frame.ts', join(tmp, 'first-frame-page.js'));
  const webview = PROFILE ? readableBundle(join(tmp, 'webview-readable.js')) : repoPath('dist', 'webview.js');
  const js = (f: string) => readFileSync(f, 'utf8').replace(/<\/(script)/gi, '<\\/$1');
  writeFileSync(
    join(tmp, 'first-frame.html'),
    `<!DOCTYPE html><html><head><meta charset="utf-8"><style>${readFileSync(repoPath('dist', 'webview.css'), 'utf8')}</style></head>
<body><div id="syncscope"></div><script>${js(webview)}</script><script>${js(join(tmp, 'first-frame-page.js'))}</script></body></html>`,
  );
  const pages: string[] = [];
  for (const [i, input] of inputs.entries()) {
    const base = `first-frame-${i}`;
    writeForPage(await readInput(input), basename(input), join(tmp, base));
    pages.push(base);
  }
  const { server, url } = await serve(tmp);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=4096'],
  });
  const rows: string[] = [];
  try {
    for (const [i, base] of pages.entries()) {
      const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
      const p = await ctx.newPage();
      const errors: string[] = [];
      p.on('pageerror', (e) => errors.push(e.message));
      await p.goto(`${url}/first-frame.html?theme=dark`);
      await until(p, '!!(window.syncscope && window.bench)');
      const cdp = PROFILE ? await ctx.newCDPSession(p) : null;
      await cdp?.send('Profiler.enable');
      await cdp?.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp?.send('Profiler.start');
      const r = (await p.evaluate(`window.bench.run(${JSON.stringify(`${url}/${base}`)})`)) as FirstFrame;
      if (cdp) writeProfile(((await cdp.send('Profiler.stop')) as { profile: Profile }).profile, join(tmp, base));
      await p.screenshot({ path: join(tmp, `${base}.png`) });
      if (errors.length) throw new Error(`page errors for ${inputs[i]}: ${errors.join('; ')}`);
      const met = r.ops < 1e7 || r.firstFrameMs <= TARGET_MS ? 'met' : 'missed';
      rows.push(
        `| ${inputs[i]} | ${r.ops} | ${r.calls} | ${r.waits} | ${r.firstFrameMs.toFixed(0)} | ${r.panelsMs.toFixed(0)} | ${loadavg()[0].toFixed(1)} | ${r.ops >= 1e7 ? met : '—'} |`,
      );
      console.log(rows[rows.length - 1]);
      await ctx.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  writeResults(rows);
}

function writeResults(rows: string[]): void {
  const git = (...a: string[]) => spawnSync('git', a, { cwd: repoPath(), encoding: 'utf8' }).stdout.trim() || 'unknown';
  const text = `# First frame of a real trace in the timeline, ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores (shared), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM
- Browser: ${spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim()}, headless, software rendering, viewport 1600×900
- Commit: ${git('rev-parse', '--short', 'HEAD')}${spawnSync('git', ['status', '--porcelain', '--', 'webview', 'bench'], { cwd: repoPath(), encoding: 'utf8' }).stdout.trim() ? ' (with uncommitted changes to webview/ or bench/)' : ''}
- Command: \`node out/bench/first-frame.bench.js ${process.argv.slice(2).join(' ')}\`

*First frame* is the time from the page receiving the trace's typed columns (the \`trace\` message,
as the extension posts it) to the end of the first drawn canvas frame (the next animation frame,
then a one-pixel read-back that makes the software canvas rasterize). *Panels* runs on to the
waits table and findings being filled. Target: the first frame of 10^7 ops in <= ${TARGET_MS} ms.

| input | ops | calls | waits | first frame ms | panels ms | load avg | <= ${TARGET_MS} ms at 10^7 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join('\n')}
`;
  const out = repoPath('bench', 'results', 'first-frame.md');
  writeFileSync(out, text);
  console.log(`\nresults written to ${out}`);
}

main().catch((e) => {
  console.error(`first-frame benchmark failed: ${(e as Error).message}`);
  process.exitCode = 1;
});
