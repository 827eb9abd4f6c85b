// Runs a Python script under torch.profiler through the launcher that ships with the extension,
// and writes the trace. The CLI's `syncscope profile` and the editor's command share this API.
export interface ProfileOptions {
  /** The interpreter. */
  python: string;
  /** The user's script. */
  script: string;
  /** Its arguments. */
  args: string[];
  /** Where the trace is written (.json.gz). */
  out: string;
  /** Optimizer steps to record after warm-up. */
  steps?: number;
  /** Time limit for a script without an optimizer. */
  seconds?: number;
  cwd?: string;
  /** Cancels: the launcher stops the profiler and writes what it has. */
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

export interface ProfileResult {
  trace?: string;
  exitCode: number;
  /** One line. */
  error?: string;
}

export function profileScript(o: ProfileOptions): Promise<ProfileResult> {
  return Promise.resolve({ exitCode: 1, error: `${o.script}: profiling is not part of this build` });
}
