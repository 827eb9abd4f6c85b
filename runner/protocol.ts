// Messages between the runner child process (child.ts) and its parent (client.ts). The channel
// uses structured-clone serialization, so a Trace's typed-array columns cross it as they are.
import type { Program } from '../core/scenario/program';
import type { Trace } from '../core/trace/model';
import type { SimProfile } from '../core/simulate/profile';
import type { DeviceInfo } from './native';

export type RunnerRequest =
  { type: 'run'; program: Program; device?: number } | { type: 'devices' } | { type: 'calibrate'; device?: number };

export type RunnerReply =
  | { type: 'progress'; message: string; done?: number; total?: number }
  | { type: 'result'; value: Trace | DeviceInfo[] | SimProfile }
  | { type: 'error'; message: string; name: string };

/** Test hooks that make the child misbehave without a GPU: hang, crash, or fail in a step. */
export const TEST_MODE_ENV = 'SYNCSCOPE_RUNNER_TEST';
