// A large PyTorch trace opened in a real VS Code (code-server, the packaged .vsix, headless
// Chromium: test/e2e/workbench.ts), as a user opens it: Syncscope: Open Trace…, the path typed in
// the file dialog. Measures the wall time until the timeline's first frame, the peak RSS of every
// process of the server's and the browser's trees (the extension host holds the worker thread that
// reads the file), whether the workbench and the extension host answer while the file loads, and
// whether an error shows. Then it waits on for the overview, which the worker builds after the first
// frame, still sampling memory. The trace is linked into the workspace, never copied or read here.
//   npm run package && node scripts/build.mjs --tests=bench/import-editor
//   node out/bench/import-editor.bench.js [--generate-mb=100] <trace.json.gz>...
// --generate-mb=N writes bench/tmp/kineto-<N>mb.json.gz (bench/import.generate.ts) if it is not
// there and measures it first. Prints a Markdown table for bench/results/import.md.
import { execSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Frame } from 'playwright-core';
import { repoPath } from '../test/helpers/paths';
import { Workbench } from '../test/e2e/workbench';
import { generateKineto } from './import.generate';

/** How long the first frame may take before the run counts as a hang. */
const FIRST_FRAME_LIMIT_MS = 30 * 60_000;
/** How long the overview may take after the first frame. */
const OVERVIEW_LIMIT_MS = 15 * 60_000;
/** A probe that takes longer than this counts as the editor not answering. */
const RESPONSIVE_MS = 5000;
/** The first probe comes soon after the file is picked, the next ones this far apart. */
const FIRST_PROBE_MS = 1500;
const PROBE_EVERY_MS = 10_000;
const SAMPLE_EVERY_MS = 200;

// ---- memory of the process trees ---------------------------------------------------------------

type Role =
  'extension host' | 'started by the extension host' | 'server' | 'browser renderer' | 'browser other' | 'other';

interface ProcPeak {
  pid: number;
  role: Role;
  /** The program it runs, without its arguments. */
  program: string;
  /** The largest VmHWM (peak resident set) read, in bytes. */
  hwm: number;
}

const read = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

const kB = (status: string, key: string): number => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : 0;
};

/** What a process is, by its command line and its parents (`parents`: pid to parent pid). */
function roleOf(pid: number, parents: Map<number, number>): Role {
  const cmd = read(`/proc/${pid}/cmdline`).split('\0').join(' ');
  if (/--type=extensionHost/.test(cmd)) return 'extension host';
  for (let up = parents.get(pid); up !== undefined; up = parents.get(up))
    if (/--type=extensionHost/.test(read(`/proc/${up}/cmdline`))) return 'started by the extension host';
  if (/code-server/.test(cmd) && !/--type=/.test(cmd)) return 'server';
  if (/chrom/.test(cmd)) return /--type=renderer/.test(cmd) ? 'browser renderer' : 'browser other';
  return 'other';
}

/** Every process's parent, from /proc/<pid>/stat. */
function parentIds(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (stat) parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  return parents;
}

/** Every process below `root`. */
function descendants(root: number, parents: Map<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(pid);
  }
  const out: number[] = [];
  for (const stack = [root]; stack.length;)
    for (const c of children.get(stack.pop()!) ?? []) {
      out.push(c);
      stack.push(c);
    }
  return out;
}

/** Reads VmHWM of every process below this one every 200 ms; a process's peak survives its exit. */
class MemorySampler {
  readonly peaks = new Map<number, ProcPeak>();
  private timer?: NodeJS.Timeout;

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
  }

  sample(): void {
    const parents = parentIds();
    for (const pid of descendants(process.pid, parents)) {
      const hwm = kB(read(`/proc/${pid}/status`), 'VmHWM');
      if (!hwm) continue;
      const program = basename(read(`/proc/${pid}/cmdline`).split('\0')[0] ?? '?');
      const known = this.peaks.get(pid) ?? { pid, role: roleOf(pid, parents), program, hwm: 0 };
      known.hwm = Math.max(known.hwm, hwm);
      this.peaks.set(pid, known);
    }
  }

  /** The largest peak among the processes of a role (each process's own, not their sum), in MB. */
  peakMb(role: Role): number {
    const peaks = [...this.peaks.values()].filter((p) => p.role === role).map((p) => p.hwm);
    return peaks.length ? Math.max(...peaks) / 2 ** 20 : 0;
  }

  /** The processes the extension host started (the worker is a thread of the extension host itself). */
  started(): ProcPeak[] {
    return [...this.peaks.values()].filter((p) => p.role === 'started by the extension host');
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

// ---- the workbench -----------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** F1 until the palette's input shows, then a command of the extension until its quick pick shows: ms of each. */
async function probe(wb: Workbench): Promise<{ paletteMs: number; extensionMs: number }> {
  const p = wb.page;
  const input = p.locator('.quick-input-widget input');
  await p
    .locator('.monaco-workbench')
    .click({ position: { x: 5, y: 450 }, force: true, timeout: 60_000 })
    .catch(() => undefined);
  const t0 = Date.now();
  await p.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: 120_000 });
  const paletteMs = Date.now() - t0;
  const title = 'Syncscope: New Scenario from Example…';
  await input.fill(`>${title}`);
  await p.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 60_000 });
  const t1 = Date.now();
  await p.keyboard.press('Enter');
  // The extension host answers with its own quick pick, whose placeholder is the extension's.
  await p.waitForFunction(
    `document.querySelector('.quick-input-widget input')?.placeholder === 'Start from which example?'`,
    null,
    { timeout: 120_000, polling: 50 },
  );
  const extensionMs = Date.now() - t1;
  await p.keyboard.press('Escape');
  await p
    .locator('.quick-input-widget')
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => undefined);
  return { paletteMs, extensionMs };
}

/** The webview that shows the trace, once it shows something: its timeline's rows or an error. */
async function outcome(wb: Workbench, deadline: number): Promise<{ frame?: Frame; error?: string }> {
  for (;;) {
    for (const f of wb.page.frames()) {
      if (f === wb.page.mainFrame()) continue;
      try {
        const error = f.locator('.error[role=alert]');
        if (await error.isVisible()) return { frame: f, error: await error.innerText() };
        if (await f.locator('.row-header').first().isVisible()) return { frame: f };
      } catch {
        /* the frame went away while we looked */
      }
    }
    const toast = await workbenchErrors(wb);
    if (toast.length) return { error: toast.join(' | ') };
    if (Date.now() > deadline) return {};
    await sleep(100);
  }
}

/** Error notifications of the workbench (toasts), by their text. */
const workbenchErrors = (wb: Workbench): Promise<string[]> =>
  wb.page
    .locator('.notifications-toasts .notification-toast:has(.codicon-error)')
    .allInnerTexts()
    .catch(() => []);

interface Run {
  file: string;
  bytes: number;
  gzBytes: number;
  /** When the extension host logged the trace as read and analysed by its worker. */
  openedMs?: number;
  firstFrameMs?: number;
  overviewMs?: number;
  error?: string;
  probes: { atMs: number; paletteMs: number; extensionMs: number }[];
  extensionHostMb: number;
  serverMb: number;
  rendererMb: number;
  others: ProcPeak[];
  log: string;
}

/** The size of a gzip file's text: gzip's trailer holds it only modulo 2^32, so it is decompressed and counted. */
function gunzippedBytes(path: string): number {
  const text = execSync(`gzip -dc ${JSON.stringify(path)} | wc -c`, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return Number(text.trim());
}

async function measure(path: string): Promise<Run> {
  const name = basename(path);
  const gzBytes = statSync(path).size;
  const bytes = name.endsWith('.gz') ? gunzippedBytes(path) : gzBytes;
  const wb = await Workbench.start({});
  const memory = new MemorySampler();
  const run: Run = {
    file: name,
    bytes,
    gzBytes,
    probes: [],
    extensionHostMb: 0,
    serverMb: 0,
    rendererMb: 0,
    others: [],
    log: '',
  };
  let t0 = Date.now();
  try {
    // A link, not a copy: the workspace holds the file without this process reading it.
    execSync(`ln -s ${JSON.stringify(resolve(path))} ${JSON.stringify(join(wb.workspace, name))}`);
    await wb.commandOnceListed('Syncscope: Open Trace…');
    memory.start();
    t0 = Date.now();
    await wb.pickPath(join(wb.workspace, name));
    let shown: { frame?: Frame; error?: string } = {};
    // While the file loads, the workbench and the extension host are asked for a quick pick now and then.
    const loading = (async () => {
      for (;;) {
        const wait = run.probes.length ? PROBE_EVERY_MS : FIRST_PROBE_MS;
        shown = await outcome(wb, Math.min(Date.now() + wait, t0 + FIRST_FRAME_LIMIT_MS));
        if (shown.frame || shown.error || Date.now() > t0 + FIRST_FRAME_LIMIT_MS) return;
        const atMs = Date.now() - t0;
        const p = await probe(wb);
        run.probes.push({ atMs, ...p });
        console.log(`  ${(atMs / 1000).toFixed(0)} s: palette ${p.paletteMs} ms, extension host ${p.extensionMs} ms`);
      }
    })();
    await loading;
    if (shown.error) run.error = shown.error;
    else if (!shown.frame) run.error = `no first frame after ${FIRST_FRAME_LIMIT_MS / 60_000} min`;
    else {
      await wb.showTimeline(shown.frame);
      // The next animation frame has drawn the canvas.
      await shown.frame.evaluate('new Promise((r) => requestAnimationFrame(() => r()))');
      run.firstFrameMs = Date.now() - t0;
      console.log(`  first frame after ${(run.firstFrameMs / 1000).toFixed(1)} s`);
      await wb.shot(`import-editor-${name}`);
      // The overview comes, or the log says why it does not.
      const frame = shown.frame;
      const overview = await wb
        .waitUntil(
          'the overview',
          async () =>
            (await frame.locator('.overview .ov-window').count()) > 0 ||
            wb.extensionLog().includes(`no overview of ${name}`),
          OVERVIEW_LIMIT_MS,
        )
        .then(
          async () => (await frame.locator('.overview .ov-window').count()) > 0,
          () => false,
        );
      if (overview) run.overviewMs = Date.now() - t0;
      const toasts = await workbenchErrors(wb);
      if (toasts.length) run.error = toasts.join(' | ');
    }
  } finally {
    memory.stop();
    run.extensionHostMb = memory.peakMb('extension host');
    run.serverMb = memory.peakMb('server');
    run.rendererMb = memory.peakMb('browser renderer');
    run.others = memory.started();
    run.log = `${wb.extensionLog()}\n${serverLog(wb)}`;
    run.openedMs = loggedAt(run.log, `opened ${name} `, t0);
    await wb.close();
  }
  return run;
}

/** The server's lines about extension host processes (their launch, their stderr, their exit). */
function serverLog(wb: Workbench): string {
  const logs = join(wb.userData, 'logs');
  if (!existsSync(logs)) return '';
  return readdirSync(logs)
    .map((d) => join(logs, d, 'remoteagent.log'))
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
    .filter((l) => /Extension Host Process|<stderr>|^\s+what\(\)/.test(l))
    .join('\n');
}

/** Milliseconds from `t0` to the log line holding `text` (the log's local time stamp), if there is one. */
function loggedAt(log: string, text: string, t0: number): number | undefined {
  const line = log.split('\n').find((l) => l.includes(text));
  const m = line && /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
  return m ? new Date(`${m[1]}T${m[2]}`).getTime() - t0 : undefined;
}

// ---- inputs and the report ---------------------------------------------------------------------

async function generated(mb: number): Promise<string> {
  const path = repoPath('bench', 'tmp', `kineto-${mb}mb.json.gz`);
  if (existsSync(path)) return path;
  mkdirSync(repoPath('bench', 'tmp'), { recursive: true });
  const part = `${path}.part`;
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(part);
  gz.pipe(out);
  // About 760 bytes of JSON per step (see import.generate.ts).
  for (const piece of generateKineto({ steps: Math.round((mb * 1e6) / 760), streams: 4, syncEvery: 10 }, 8 << 20))
    if (!gz.write(piece)) await once(gz, 'drain');
  gz.end();
  await once(out, 'close');
  renameSync(part, path);
  return path;
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
const seconds = (ms: number | undefined) => (ms === undefined ? '—' : (ms / 1000).toFixed(1));

function row(r: Run): string {
  const worst = r.probes.length ? Math.max(...r.probes.map((p) => Math.max(p.paletteMs, p.extensionMs))) : undefined;
  const responsive =
    worst === undefined ? 'not probed (loaded first)' : `${worst <= RESPONSIVE_MS ? 'yes' : 'NO'}: slowest ${worst} ms`;
  // Processes of the same program (the built-in git extension's git runs, say) count as one, at the largest peak.
  const byProgram = new Map<string, { n: number; hwm: number }>();
  for (const p of r.others) {
    const seen = byProgram.get(p.program) ?? { n: 0, hwm: 0 };
    byProgram.set(p.program, { n: seen.n + 1, hwm: Math.max(seen.hwm, p.hwm) });
  }
  const others = byProgram.size
    ? [...byProgram].map(([program, p]) => `${program} ×${p.n}: ${(p.hwm / 2 ** 20).toFixed(0)}`).join(', ')
    : 'none';
  return `| ${r.file} | ${mb(r.bytes)} (gzip ${mb(r.gzBytes)}) | ${seconds(r.openedMs)} | ${seconds(r.firstFrameMs)} | ${seconds(r.overviewMs)} | ${r.extensionHostMb.toFixed(0)} | ${others} | ${r.serverMb.toFixed(0)} | ${r.rendererMb.toFixed(0)} | ${responsive} (${r.probes.length} probes) | ${r.error ?? 'none'} |`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const gen = args.find((a) => a.startsWith('--generate-mb='));
  const paths = args.filter((a) => !a.startsWith('--'));
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length) {
    console.error(`no such file: ${missing.join(', ')}; give the path of a PyTorch trace (.json or .json.gz)`);
    process.exit(2);
  }
  if (gen) paths.unshift(await generated(Number(gen.slice(gen.indexOf('=') + 1))));
  if (!paths.length) {
    console.error('usage: node out/bench/import-editor.bench.js [--generate-mb=N] <trace.json.gz>...');
    process.exit(2);
  }
  const runs: Run[] = [];
  for (const p of paths) {
    console.log(`${p}:`);
    const r = await measure(p);
    runs.push(r);
    console.log(row(r));
    if (r.error || r.firstFrameMs === undefined) console.log(`extension log:\n${r.log}`);
  }
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  console.log(
    [
      '',
      `- Date: ${new Date().toISOString().slice(0, 10)}`,
      `- Machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}`,
      `- Commit: ${commit}`,
      `- Command: \`node out/bench/import-editor.bench.js ${process.argv.slice(2).join(' ')}\``,
      `- Load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}`,
      '',
      '| file | MB | read and analysed s | first frame s | overview s | peak RSS extension host MB | peak RSS processes the extension started MB | peak RSS server MB | peak RSS browser renderer MB | responsive while loading | error |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |',
      ...runs.map(row),
    ].join('\n'),
  );
  for (const r of runs)
    console.log(
      `\n${r.file}: extension log lines about it:\n${r.log
        .split('\n')
        .filter((l) => /opened|sent "|took "|overview|stopped|blank|error|warn|exited|stderr/i.test(l))
        .join('\n')}`,
    );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
