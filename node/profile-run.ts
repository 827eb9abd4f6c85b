// Runs a Python script under torch.profiler through the launcher that ships beside the bundles
// (python/syncscope_profile.py, copied into dist/ by the build): the one API that `syncscope profile`
// and the editor's command use. The launcher writes a gzipped Chrome trace; importing it is the caller's.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { plainStepOf } from '../core/import/python-sites';
import type { PlainStep } from '../core/trace/model';
import { withSyncClock } from './sync-clock';

export interface ProfileOptions {
  /** The interpreter. */
  python: string;
  /** The user's script. */
  script: string;
  /** Its arguments. */
  args: string[];
  /** Where the trace goes (.json.gz). */
  out: string;
  /** Optimizer steps to record after the warm-up. */
  steps?: number;
  /** Time limit of the recording until the first step ends. */
  seconds?: number;
  /** Steps run with the profiler off, before the warm-up, to measure the script's own speed (TraceMeta.plainStep); the launcher's default where unset. */
  plainSteps?: number;
  /** What ends a step instead of the optimizer: the user's function (name or Class.method), or FILE:LINE. */
  stepOn?: string;
  cwd?: string;
  /** The interpreter's environment; this process's by default. */
  env?: NodeJS.ProcessEnv;
  /** Cancel: the launcher stops the profiler and writes what it has. */
  signal?: AbortSignal;
  /** The launcher's progress lines ("step 2/5", "writing trace ..."). */
  onProgress?: (line: string) => void;
  /** The script's own output (stdout and stderr); by default it goes to this process's stderr. */
  onOutput?: (text: string) => void;
}

export interface ProfileResult {
  /** The trace, where one was written: also after a failure or a cancel. */
  trace?: string;
  exitCode: number;
  /** Why the run failed or what it lost, in one line. */
  error?: string;
}

/** The launcher's file name: core's user-frame rule skips its frames by this name. */
export const LAUNCHER = 'syncscope_profile.py';

/** The prefix of the launcher's own lines on stderr. */
const PREFIX = 'syncscope-profile: ';

/** How long the launcher has to write its trace after SIGINT before it gets SIGTERM, then SIGKILL. */
export const CANCEL_GRACE_MS = 10_000;

/** The launcher's own exit codes (python/syncscope_profile.py). */
const LAUNCHER_EXIT: Record<number, string> = {
  64: 'usage',
  65: 'no-torch',
  66: 'no-script',
  67: 'no-cuda',
  70: 'write',
};

/** Beside this bundle (dist/), else python/ in the first folder above this file that has it (sources, tests). */
export function launcherPath(): string {
  if (existsSync(join(__dirname, LAUNCHER))) return join(__dirname, LAUNCHER);
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'python', LAUNCHER))) return join(dir, 'python', LAUNCHER);
  }
  return join(__dirname, LAUNCHER);
}

export function launcherArgs(o: ProfileOptions, launcher = launcherPath()): string[] {
  const cwd = o.cwd ?? process.cwd();
  const args = [launcher, '--out', resolve(cwd, o.out)];
  if (o.steps !== undefined) args.push('--steps', String(o.steps));
  if (o.seconds !== undefined) args.push('--seconds', String(o.seconds));
  if (o.plainSteps !== undefined) args.push('--plain-steps', String(o.plainSteps));
  if (o.stepOn) args.push('--step-on', o.stepOn);
  return [...args, '--', resolve(cwd, o.script), ...o.args];
}

/** What the launcher said about itself on stderr. */
interface Said {
  error?: { kind: string; text: string };
  written?: string;
  raised?: string;
  /** The plain steps' speed, from a --plain-only run (or why the line did not read). */
  plain?: PlainStep | string;
}

/** The launcher's line that gives a --plain-only run's measure. */
const PLAIN_LINE = 'plain step measured ';

/** Text handed on a whole line at a time; what is left when the stream ends, as a line of its own. */
function wholeLines(write: (t: string) => void) {
  let pending = '';
  return {
    push(chunk: string) {
      const text = pending + chunk;
      const cut = text.lastIndexOf('\n') + 1;
      pending = text.slice(cut);
      if (cut) write(text.slice(0, cut));
    },
    end() {
      if (pending) write(pending + '\n');
      pending = '';
    },
  };
}

/** Splits stderr into the launcher's lines (progress, errors) and the script's own text. */
function stderrReader(said: Said, o: Pick<ProfileOptions, 'onProgress'>, output: (t: string) => void) {
  const line = (l: string) => {
    if (!l.startsWith(PREFIX)) return output(l + '\n');
    const text = l.slice(PREFIX.length);
    const error = /^error ([\w-]+): (.*)$/.exec(text);
    if (error) said.error ??= { kind: error[1], text: error[2] };
    else if (text.startsWith('trace written ')) said.written = text.slice('trace written '.length);
    else if (text.startsWith('the script raised ')) said.raised = text.slice('the script '.length);
    else if (text.startsWith(PLAIN_LINE)) said.plain = plainLine(text.slice(PLAIN_LINE.length));
    o.onProgress?.(text);
  };
  // wholeLines hands on text that ends with a newline: each line before it is one of the launcher's or the script's.
  return wholeLines((text) => text.slice(0, -1).split('\n').forEach(line));
}

function plainLine(json: string): PlainStep | string {
  try {
    const plain = plainStepOf((JSON.parse(json) as { plain?: unknown } | null)?.plain);
    return typeof plain === 'string' ? `the launcher's plain step does not read: ${plain}` : plain;
  } catch {
    return `the launcher's plain step is not JSON: ${json.slice(0, 80)}`;
  }
}

export async function profileScript(o: ProfileOptions): Promise<ProfileResult> {
  const launcher = launcherPath();
  if (!existsSync(launcher)) return { exitCode: 2, error: missing(launcher) };
  const ran = await runLauncher(o, launcherArgs(o, launcher));
  const { said } = ran;
  const trace = said.written && existsSync(said.written) ? said.written : undefined;
  if (ran.spawnError) return { exitCode: 2, error: interpreterError(o.python, ran.spawnError) };
  const kept = trace ? `; the trace keeps what was recorded until then (${trace})` : '; no trace was written';
  const error = failure(o, ran, kept) ?? (trace ? undefined : `${o.script}: no trace was written`);
  return { trace, exitCode: ran.exitCode, error };
}

/** `seconds`: how long the script may take to end its first step (the launcher's default where unset). */
export type PlainOptions = Omit<ProfileOptions, 'out' | 'steps' | 'plainSteps'> & { plainSteps: number };

export interface PlainResult {
  /** The script's step without a recorder (TraceMeta.plainStep). */
  plain?: PlainStep;
  exitCode: number;
  error?: string;
}

/**
 * The script's own step, without any recorder: the launcher runs it with no profiler and its hooks
 * paused (with `stepOn`, from the end of the first step), times the last `plainSteps` of 2 +
 * `plainSteps` steps as `syncscope profile --plain-steps` does, and stops it at the next step's end.
 * For a recorder that cannot pause (a capture), run before it.
 */
export async function timePlainSteps(o: PlainOptions): Promise<PlainResult> {
  const launcher = launcherPath();
  if (!existsSync(launcher)) return { exitCode: 2, error: missing(launcher) };
  const cwd = o.cwd ?? process.cwd();
  const args = [launcher, '--plain-only', '--plain-steps', String(o.plainSteps)];
  if (o.stepOn) args.push('--step-on', o.stepOn);
  if (o.seconds !== undefined) args.push('--seconds', String(o.seconds));
  const ran = await runLauncher(o, [...args, '--', resolve(cwd, o.script), ...o.args]);
  if (ran.spawnError) return { exitCode: 2, error: interpreterError(o.python, ran.spawnError) };
  const { plain } = ran.said;
  const error =
    failure(o, ran, '; its plain steps were not timed') ??
    (typeof plain === 'string' ? plain : plain ? undefined : `${o.script}: its plain steps were not timed`);
  return { ...(plain && typeof plain !== 'string' ? { plain } : {}), exitCode: ran.exitCode, error };
}

/** An interpreter named python (python3, /usr/bin/python3.12, ...), then the script: the launcher runs it so. */
export const isPythonScript = (command: readonly string[]): boolean =>
  command.length >= 2 && /^python[\d.]*$/.test(basename(command[0])) && command[1].endsWith('.py');

/** Why a command cannot have its plain steps timed, or undefined where it can. */
export const plainStepsRefusal = (command: readonly string[]): string | undefined =>
  isPythonScript(command)
    ? undefined
    : `plain steps are timed for a Python script; expected the command as <python> <script.py> [args...], not "${command.slice(0, 2).join(' ')}"`;

const missing = (launcher: string) => `${launcher}: the profile launcher is missing; rebuild Syncscope`;

interface Ran {
  said: Said;
  exitCode: number;
  cancelled: boolean;
  signal: NodeJS.Signals | null;
  spawnError?: NodeJS.ErrnoException;
}

/** The launcher run to its end: what it said, and how it ended. */
function runLauncher(o: Omit<ProfileOptions, 'out'>, args: string[]): Promise<Ran> {
  const output = o.onOutput ?? ((t: string) => void process.stderr.write(t));
  const said: Said = {};
  const reader = stderrReader(said, o, output);
  return new Promise((done) => {
    const child = spawn(o.python, args, {
      cwd: o.cwd,
      env: pythonEnv(o.env ?? process.env),
      // Its own process group: a terminal's Ctrl-C reaches the caller, who cancels once through `signal`.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Whole lines only: unbuffered, Python writes a line's text and its newline apart, and a
    // progress line read from stderr between them would land inside the script's line.
    const lines = wholeLines(output);
    child.stdout.setEncoding('utf8').on('data', lines.push);
    child.stderr.setEncoding('utf8').on('data', (d: string) => reader.push(d));
    let cancelled = false;
    const timers: NodeJS.Timeout[] = [];
    const cancel = () => {
      cancelled = true;
      child.kill('SIGINT');
      timers.push(setTimeout(() => child.kill('SIGTERM'), CANCEL_GRACE_MS));
      timers.push(setTimeout(() => child.kill('SIGKILL'), 2 * CANCEL_GRACE_MS));
    };
    if (o.signal?.aborted) cancel();
    else o.signal?.addEventListener('abort', cancel, { once: true });
    let spawnError: NodeJS.ErrnoException | undefined;
    child.on('error', (e: NodeJS.ErrnoException) => (spawnError = e));
    child.on('close', (code, signal) => {
      o.signal?.removeEventListener('abort', cancel);
      timers.forEach(clearTimeout);
      lines.end();
      reader.end();
      // A process ended by a signal has the shell's status for it: 128 + the signal's number.
      const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      done({ said, exitCode, cancelled, signal, spawnError });
    });
  });
}

/** Unbuffered, so that progress arrives as it happens; without the editor's Electron switch; with the sync clock. */
function pythonEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...withSyncClock(base), PYTHONUNBUFFERED: '1' };
  delete env.ELECTRON_RUN_AS_NODE;
  return env;
}

function interpreterError(python: string, e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return `${python}: Python interpreter not found; install Python or name one that exists`;
  if (e.code === 'EACCES') return `${python}: not executable; name a Python interpreter`;
  return `${python}: cannot start it (${e.message})`;
}

/** The one line that says what went wrong (`kept`: what was kept of the run), or undefined for a run that ended well. */
function failure(o: Pick<ProfileOptions, 'script'>, ran: Ran, kept: string): string | undefined {
  const { said, exitCode, signal } = ran;
  if (said.error && LAUNCHER_EXIT[exitCode] === said.error.kind) return errorLine(said.error);
  if (ran.cancelled) return `cancelled${kept}`;
  if (exitCode !== 0) {
    const what = said.raised ?? (signal ? `was ended by ${signal}` : `exited with code ${exitCode}`);
    return `${o.script}: the script ${what}${kept}`;
  }
  if (said.error) return errorLine(said.error);
  return undefined;
}

/** The launcher's own errors name the interpreter or the script already. */
const errorLine = (e: { kind: string; text: string }): string => e.text;
