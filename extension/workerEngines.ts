// The extension's way to its worker thread: one client, started on first use (never at
// activation), whose workers run dist/worker.js under the limits in logic/engineOps.ts.
import { join } from 'node:path';
import { EngineClient, type RequestOptions } from './logic/engineClient';
import { WORKER_LIMITS, type EngineOps, type OpName } from './logic/engineOps';

let client: EngineClient | undefined;

export function callEngine<K extends OpName>(
  op: K,
  args: EngineOps[K]['args'],
  opts: RequestOptions,
): Promise<EngineOps[K]['result']> {
  client ??= new EngineClient(join(__dirname, 'worker.js'), WORKER_LIMITS);
  return client.request<EngineOps[K]['result']>(op, args, opts);
}

export function disposeEngineWorkers(): void {
  client?.dispose();
  client = undefined;
}
