// Runs a program with the capture library injected (CUDA_INJECTION64_PATH) and collects the raw
// streams it leaves: one per process that used CUDA (the library names them by process id).
import type { UserCode } from '../core/import/python-sites';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCapture } from '../core/import/capture-convert';
import type { Trace } from '../core/trace/model';
import type { CaptureLibrary } from './capture-library';
import { plainStepsRefusal, timePlainSteps, type PlainResult } from './profile-run';

export interface CaptureRequest {
  library: Extract<CaptureLibrary, { ok: true }>;
  command: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The program's stdout and stderr: the terminal's, or handed to `onOutput`. */
  stdio: 'inherit' | 'pipe';
  onOutput?: (text: string) => void;
  /** Aborting ends the program: SIGTERM to its whole process group, SIGKILL if it lingers. */
  signal?: AbortSignal;
  /** Signals to pass on to the program's process group while it runs (Ctrl-C in a terminal). */
  forward?: NodeJS.Signals[];
  /** Paths added to or taken out of the user's code, for the calls' lines. */
  userCode?: UserCode;
  /**
   * A Python script's own speed, timed first in a run of it alone (the capture cannot pause), and
   * kept in the trace as meta.plainStep: `steps` plain steps, ended as `stepOn` says, the first
   * within `seconds`; the launcher's lines and the script's output to the callbacks.
   */
  plain?: {
    steps: number;
    stepOn?: string;
    seconds?: number;
    onProgress?: (line: string) => void;
    onOutput?: (text: string) => void;
  };
}

/** How long a program has to exit after SIGTERM before the group gets SIGKILL. */
const KILL_AFTER_MS = 5000;

export interface RawStream {
  pid: number;
  bytes: Uint8Array;
}

export interface CaptureOutcome {
  /** The exit code, or null when a signal ended the program. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Raw streams, the largest (the process that did the most CUDA work) first. */
  raws: RawStream[];
  /** Set when the program could not be started at all. */
  spawnError?: string;
}

/**
 * The environment that makes CUDA load the library into the program. CUPTI's directory goes last
 * on the library path: it is only a fallback for the library's own run path, and the program's
 * libraries must resolve as they would without the capture.
 */
export function captureEnv(
  library: CaptureRequest['library'],
  outPattern: string,
  base: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, CUDA_INJECTION64_PATH: library.path, SYNCSCOPE_CAPTURE_OUT: outPattern };
  // Set when the editor runs us under its Electron; the captured program must not inherit it.
  delete env.ELECTRON_RUN_AS_NODE;
  if (library.cuptiDir) env.LD_LIBRARY_PATH = [base.LD_LIBRARY_PATH, library.cuptiDir].filter(Boolean).join(':');
  return env;
}

export async function captureProgram(req: CaptureRequest): Promise<CaptureOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-capture-'));
  try {
    const env = captureEnv(req.library, join(dir, 'capture-%p.raw'), req.env ?? process.env);
    const [file, ...args] = req.command;
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>(
      (resolve) => {
        // Its own process group, so that ending it ends what it started too (a shell's pipeline).
        const child = spawn(file, args, {
          cwd: req.cwd,
          env,
          detached: true,
          stdio: req.stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
        });
        child.stdout?.on('data', (d: Buffer) => req.onOutput?.(d.toString()));
        child.stderr?.on('data', (d: Buffer) => req.onOutput?.(d.toString()));
        const group = (sig: NodeJS.Signals) => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, sig);
          } catch {
            // Already gone.
          }
        };
        let killer: NodeJS.Timeout | undefined;
        const abort = () => {
          group('SIGTERM');
          killer = setTimeout(() => group('SIGKILL'), KILL_AFTER_MS);
        };
        const forwarders = (req.forward ?? []).map((sig) => [sig, () => group(sig)] as const);
        for (const [sig, f] of forwarders) process.on(sig, f);
        if (req.signal?.aborted) abort();
        else req.signal?.addEventListener('abort', abort, { once: true });
        const done = () => {
          req.signal?.removeEventListener('abort', abort);
          for (const [sig, f] of forwarders) process.off(sig, f);
          if (killer) clearTimeout(killer);
        };
        child.on('error', (e) => {
          done();
          resolve({ code: null, signal: null, error: e.message });
        });
        child.on('close', (code, signal) => {
          done();
          resolve({ code, signal });
        });
      },
    );
    const raws = readdirSync(dir)
      .map((f) => /^capture-(\d+)\.raw$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ pid: Number(m[1]), bytes: new Uint8Array(readFileSync(join(dir, m[0]))) }))
      .sort((a, b) => b.bytes.length - a.bytes.length);
    return { exitCode: ended.code, signal: ended.signal, raws, spawnError: ended.error };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A capture converted, or why there is nothing to show: what `syncscope capture` and the editor's command report. */
export type CaptureResult =
  | {
      ok: true;
      trace: Trace;
      /** The stream the trace came from: the process that did the most CUDA work. */
      raw: RawStream;
      /** Set when the program failed or was ended: the trace holds what was captured until then. */
      failure?: string;
      /** Why the plain steps asked for were not timed: the capture went on without them. */
      plainFailure?: string;
    }
  | { ok: false; reason: string };

/** Runs the program under the capture library and converts the stream of the process that did the most CUDA work. */
export async function captureTrace(req: CaptureRequest): Promise<CaptureResult> {
  const plain = req.plain ? await timePlainRun(req, req.plain) : undefined;
  if (plain && 'reason' in plain) return { ok: false, reason: plain.reason };
  // When the program started: a source file changed after it is newer than what the trace shows.
  const started = new Date().toISOString();
  const outcome = await captureProgram(req);
  const { command } = req;
  if (outcome.spawnError) return { ok: false, reason: `cannot start ${command[0]}: ${outcome.spawnError}` };
  const shown = command.join(' ');
  const ended = outcome.signal ? `was ended by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
  const [main, ...others] = outcome.raws;
  if (!main) return { ok: false, reason: `nothing was captured: "${shown}" ${ended} without initialising CUDA` };
  const trace = importCapture(main.bytes, { name: shown, userCode: req.userCode });
  trace.meta.createdAt = started;
  if (others.length)
    trace.meta.notes?.push(
      `${others.length} other processes used CUDA too (pids ${others.map((r) => r.pid).join(', ')}); this trace is process ${main.pid}`,
    );
  if (trace.calls.count === 0) {
    return {
      ok: false,
      reason: `nothing was captured: "${shown}" ${ended} after initialising CUDA but made no CUDA call the capture follows`,
    };
  }
  if (plain?.timed.plain) trace.meta.plainStep = plain.timed.plain;
  const failure =
    outcome.exitCode !== 0 ? `"${shown}" ${ended}; the trace holds what was captured until then` : undefined;
  return { ok: true, trace, raw: main, failure, ...(plain?.timed.error ? { plainFailure: plain.timed.error } : {}) };
}

/**
 * The plain run before a capture (timePlainSteps), or why the capture must not begin: a cancel. The
 * signals passed on to the program cancel it. A command that is not `<python> <script.py>` (which
 * callers that take a command line refuse first, plainStepsRefusal) fails its plain run alone.
 */
async function timePlainRun(
  req: CaptureRequest,
  plain: NonNullable<CaptureRequest['plain']>,
): Promise<{ timed: PlainResult } | { reason: string }> {
  if (req.command.length < 2) return { timed: { exitCode: 2, error: plainStepsRefusal(req.command) } };
  const stop = new AbortController();
  const cancel = () => stop.abort();
  const forwarded = req.forward ?? [];
  for (const sig of forwarded) process.on(sig, cancel);
  if (req.signal?.aborted) cancel();
  else req.signal?.addEventListener('abort', cancel, { once: true });
  const [python, script, ...args] = req.command;
  try {
    const timed = await timePlainSteps({
      python,
      script,
      args,
      plainSteps: plain.steps,
      stepOn: plain.stepOn,
      seconds: plain.seconds,
      cwd: req.cwd,
      env: req.env,
      signal: stop.signal,
      onProgress: plain.onProgress,
      onOutput: plain.onOutput,
    });
    return stop.signal.aborted ? { reason: 'cancelled during the plain steps; nothing was captured' } : { timed };
  } finally {
    for (const sig of forwarded) process.off(sig, cancel);
    req.signal?.removeEventListener('abort', cancel);
  }
}
