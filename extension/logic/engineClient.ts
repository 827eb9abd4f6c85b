// Runs requests in worker threads (node:worker_threads) under a time and a memory limit, so that a
// costly or hostile file costs one worker, never the extension host. A request that runs past its
// time, is cancelled, or runs out of memory has its worker terminated; the next request gets a
// fresh one. Free of `vscode`, so it is unit-tested under node.
import { Worker, type TransferListItem } from 'node:worker_threads';

/** Host -> worker. */
export interface WorkerRequest {
  id: number;
  op: string;
  args: unknown;
}

/** Worker -> host. */
export type WorkerReply =
  | { id: number; type: 'progress'; bytes: number; total: number }
  | { id: number; type: 'done'; result: unknown }
  | { id: number; type: 'failed'; message: string };

export interface WorkerLimits {
  /** The V8 heap of each worker (`resourceLimits.maxOldGenerationSizeMb`). */
  memoryMb: number;
  /** Workers running at once; further requests wait for one to be free. */
  concurrency: number;
}

export interface RequestOptions {
  /** What the request works on (a file name), for the messages. */
  subject: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (bytes: number, total: number) => void;
}

/** A request stopped by a limit; its message says which, and what to do. */
export class WorkerLimitError extends Error {
  constructor(
    readonly limit: 'time' | 'memory' | 'exit',
    message: string,
  ) {
    super(message);
    this.name = 'WorkerLimitError';
  }
}

/** A request cancelled by its signal (a newer edit, a closed editor, the user). */
export class RequestCancelledError extends Error {
  constructor(subject: string) {
    super(`${subject}: cancelled`);
    this.name = 'RequestCancelledError';
  }
}

interface Running {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (bytes: number, total: number) => void;
}

const seconds = (ms: number): string => `${+(ms / 1000).toFixed(1)} s`;

export class EngineClient {
  private readonly idle: Worker[] = [];
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;
  private disposed = false;

  constructor(
    private readonly script: string,
    private readonly limits: WorkerLimits,
  ) {}

  /** Workers alive now (idle or busy), for tests. */
  get workers(): number {
    return this.idle.length + this.busy;
  }

  async request<R>(op: string, args: unknown, opts: RequestOptions, transfer: TransferListItem[] = []): Promise<R> {
    if (opts.signal?.aborted) throw new RequestCancelledError(opts.subject);
    await this.slot(opts);
    const worker = this.idle.pop() ?? this.spawn();
    worker.ref();
    try {
      const result = await this.run(worker, { id: this.nextId++, op, args }, opts, transfer);
      this.release(worker);
      return result as R;
    } catch (e) {
      // A worker that failed a request by throwing is sound; any other ending took it down.
      if (e instanceof WorkerLimitError || e instanceof RequestCancelledError) void worker.terminate();
      else this.release(worker);
      throw e;
    } finally {
      this.busy--;
      this.waiting.shift()?.();
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.idle.splice(0)) void w.terminate();
  }

  /** Waits until fewer than `concurrency` requests run (or the request is cancelled meanwhile). */
  private async slot(opts: RequestOptions): Promise<void> {
    while (this.busy >= this.limits.concurrency) {
      await new Promise<void>((resolve, reject) => {
        const go = (): void => {
          opts.signal?.removeEventListener('abort', cancel);
          resolve();
        };
        const cancel = (): void => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new RequestCancelledError(opts.subject));
        };
        this.waiting.push(go);
        opts.signal?.addEventListener('abort', cancel, { once: true });
      });
    }
    this.busy++;
  }

  private spawn(): Worker {
    const worker = new Worker(this.script, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 64 },
      stdout: false,
      stderr: false,
    });
    // An idle worker that ends (whatever the cause) is not handed the next request.
    worker.once('exit', () => {
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return worker;
  }

  /** One idle worker is kept for the next request; it does not keep the process alive. */
  private release(worker: Worker): void {
    if (this.disposed || this.idle.length) void worker.terminate();
    else {
      worker.unref();
      this.idle.push(worker);
    }
  }

  private run(
    worker: Worker,
    req: WorkerRequest,
    opts: RequestOptions,
    transfer: TransferListItem[],
  ): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const running: Running = { resolve, reject, onProgress: opts.onProgress };
      let memoryExceeded = false;
      const onMessage = (reply: WorkerReply): void => {
        if (reply.id !== req.id) return;
        if (reply.type === 'progress') running.onProgress?.(reply.bytes, reply.total);
        else if (reply.type === 'done') finish(() => resolve(reply.result));
        else finish(() => reject(new Error(reply.message)));
      };
      const onError = (e: Error & { code?: string }): void => {
        if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') memoryExceeded = true;
        else finish(() => reject(new WorkerLimitError('exit', `${opts.subject}: processing failed: ${e.message}`)));
      };
      const onExit = (code: number): void =>
        finish(() =>
          reject(
            memoryExceeded
              ? new WorkerLimitError(
                  'memory',
                  `${opts.subject}: stopped: processing it needs more than ${this.limits.memoryMb} MB of memory; ` +
                    'a smaller file (fewer steps or events) would open',
                )
              : new WorkerLimitError('exit', `${opts.subject}: processing stopped unexpectedly (exit code ${code})`),
          ),
        );
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new WorkerLimitError(
                'time',
                `${opts.subject}: stopped after ${seconds(opts.timeoutMs)}: processing it takes too long in the editor; ` +
                  'a smaller file (fewer steps or events) would open, or use the syncscope CLI',
              ),
            ),
          ),
        opts.timeoutMs,
      );
      const onAbort = (): void => finish(() => reject(new RequestCancelledError(opts.subject)));
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        opts.signal?.removeEventListener('abort', onAbort);
        settle();
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        worker.postMessage(req, transfer);
      } catch (e) {
        finish(() => reject(e as Error));
      }
    });
  }
}
