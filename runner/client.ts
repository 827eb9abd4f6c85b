// The parent side of the runner process, shared by the CLI and the extension: forks dist/runner.js,
// streams its progress, and turns every way it can end (result, error, crash, timeout, cancel)
// into a settled promise. It never waits on a child that cannot answer.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Program } from '../core/scenario/program';
import type { SimProfile } from '../core/simulate/profile';
import type { Trace } from '../core/trace/model';
import type { DeviceInfo } from './native';
import type { RunnerReply, RunnerRequest } from './protocol';

export interface RunnerOptions {
  signal?: AbortSignal;
  /** Kill the runner after this long (default 10 minutes). */
  timeoutMs?: number;
  onProgress?: (message: string, done?: number, total?: number) => void;
  /** Called with the child's pid once it has started. */
  onSpawn?: (pid: number) => void;
  env?: NodeJS.ProcessEnv;
  runnerPath?: string;
}

export class RunnerError extends Error {
  override name = 'RunnerError';
  /** `errorName`: the name of the error the runner reported, e.g. GpuUnavailableError. */
  constructor(
    message: string,
    readonly reason: 'crash' | 'timeout' | 'cancelled' | 'failed' | 'missing',
    readonly errorName?: string,
  ) {
    super(message);
  }
}

/** dist/runner.js beside this bundle (dist/cli.js, dist/extension.js), else in the first dist/ above. */
export function runnerPath(): string {
  if (existsSync(join(__dirname, 'runner.js')) && !__filename.endsWith('runner.js'))
    return join(__dirname, 'runner.js');
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'dist', 'runner.js'))) return join(dir, 'dist', 'runner.js');
  }
  return join(__dirname, 'runner.js');
}

export function request(req: RunnerRequest, opts: RunnerOptions = {}): Promise<unknown> {
  const path = opts.runnerPath ?? runnerPath();
  if (!existsSync(path))
    return Promise.reject(new RunnerError(`GPU runner not found at ${path} (npm run build)`, 'missing'));
  if (opts.signal?.aborted) return Promise.reject(new RunnerError('GPU run cancelled', 'cancelled'));
  return new Promise((resolve, reject) => {
    // process.execPath is node for the CLI and Electron for VS Code; ELECTRON_RUN_AS_NODE makes
    // the latter behave as plain node.
    const child: ChildProcess = fork(path, [], {
      execPath: process.execPath,
      env: { ...(opts.env ?? process.env), ELECTRON_RUN_AS_NODE: '1' },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    let settled = false;
    const finish = (err: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (err) reject(err);
      else resolve(value);
    };
    const timeoutMs = opts.timeoutMs ?? 600_000;
    const timer = setTimeout(
      () =>
        finish(
          new RunnerError(
            `GPU run timed out after ${(timeoutMs / 1000).toFixed(1)} s; the runner was stopped`,
            'timeout',
          ),
        ),
      timeoutMs,
    );
    const onAbort = () => finish(new RunnerError('GPU run cancelled', 'cancelled'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('message', (m: RunnerReply) => {
      if (m.type === 'progress') opts.onProgress?.(m.message, m.done, m.total);
      else if (m.type === 'result') finish(undefined, m.value);
      else finish(new RunnerError(m.message, 'failed', m.name));
    });
    child.on('error', (e) => finish(new RunnerError(`GPU runner failed to start: ${e.message}`, 'crash')));
    child.on('exit', (code, signal) => {
      const tail = stderr.trim() ? `; its last output: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
      finish(
        new RunnerError(
          `GPU runner ${signal ? `was killed by ${signal}` : `exited with code ${code}`} before answering${tail}`,
          'crash',
        ),
      );
    });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    child.send(req);
  });
}

export const runInRunner = (program: Program, opts?: RunnerOptions & { device?: number }): Promise<Trace> =>
  request({ type: 'run', program, device: opts?.device }, opts) as Promise<Trace>;

export const devicesInRunner = (opts?: RunnerOptions): Promise<DeviceInfo[]> =>
  request({ type: 'devices' }, opts) as Promise<DeviceInfo[]>;

export const calibrateInRunner = (opts?: RunnerOptions & { device?: number }): Promise<SimProfile> =>
  request({ type: 'calibrate', device: opts?.device }, { timeoutMs: 300_000, ...opts }) as Promise<SimProfile>;
