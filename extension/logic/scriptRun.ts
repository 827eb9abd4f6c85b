// How "Capture Python Script" and "Profile Python Script" run a script: under the capture library
// (CUPTI: every CUDA call, the exact releasing op, no profiler in the way) or under torch.profiler
// (which also runs on ROCm and where the capture library is not built). Free of `vscode`, so it is
// unit-tested under node.
import { basename } from 'node:path';

export type ScriptRunner = 'capture' | 'profile';

export interface RunnerChoice {
  runner: ScriptRunner;
  label: string;
  description: string;
  detail: string;
}

const CAPTURE: RunnerChoice = {
  runner: 'capture',
  label: 'Capture with CUPTI',
  description: 'exact, recommended',
  detail:
    'Records every CUDA call and GPU op, the op that released each wait, and the Python line of each call, without a profiler in the way.',
};

const PROFILE: RunnerChoice = {
  runner: 'profile',
  label: 'Profile with torch.profiler',
  description: 'also on ROCm',
  detail: "Records a few optimizer steps; the profiler's own cost per op can shorten the waits it shows.",
};

/** What "Profile Python Script" offers: capture first where the capture library is built, else profiling alone. */
export const runnerChoices = (captureAvailable: boolean): RunnerChoice[] =>
  captureAvailable ? [CAPTURE, PROFILE] : [PROFILE];

/** A file name for a script's new trace that sorts by time: train-20261202-143005.json.gz, or .syncscope.json for a capture. */
export function scriptTraceName(script: string, d: Date, runner: ScriptRunner): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stem = basename(script).replace(/\.py$/i, '');
  const time = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  return `${stem}-${time}${runner === 'capture' ? '.syncscope.json' : '.json.gz'}`;
}
