// Runs a program with the capture library injected (CUDA_INJECTION64_PATH) and collects the raw
// streams it leaves: one per process that used CUDA (the library names them by process id).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptureLibrary } from './capture-library';

export interface CaptureRequest {
  library: Extract<CaptureLibrary, { ok: true }>;
  command: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The program's stdout and stderr: the terminal's, or handed to `onOutput`. */
  stdio: 'inherit' | 'pipe';
  onOutput?: (text: string) => void;
  signal?: AbortSignal;
}

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

/** The environment that makes CUDA load the library into the program. */
export function captureEnv(library: CaptureRequest['library'], outPattern: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, CUDA_INJECTION64_PATH: library.path, SYNCSCOPE_CAPTURE_OUT: outPattern };
  if (library.cuptiDir) env.LD_LIBRARY_PATH = [library.cuptiDir, base.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return env;
}

export async function captureProgram(req: CaptureRequest): Promise<CaptureOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-capture-'));
  try {
    const env = captureEnv(req.library, join(dir, 'capture-%p.raw'), req.env ?? process.env);
    const [file, ...args] = req.command;
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>((resolve) => {
      const child = spawn(file, args, { cwd: req.cwd, env, stdio: req.stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
      child.stdout?.on('data', (d: Buffer) => req.onOutput?.(d.toString()));
      child.stderr?.on('data', (d: Buffer) => req.onOutput?.(d.toString()));
      const abort = () => child.kill('SIGTERM');
      req.signal?.addEventListener('abort', abort, { once: true });
      child.on('error', (e) => resolve({ code: null, signal: null, error: e.message }));
      child.on('close', (code, signal) => {
        req.signal?.removeEventListener('abort', abort);
        resolve({ code, signal });
      });
    });
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
