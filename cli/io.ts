// What a command may touch: its streams and the working directory. Commands take this instead of
// `process` so that tests run them in-process and read exactly what a user would see.
import { escapeControlsKeepLines } from '../core/terminal';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

/** Bad input or usage: the dispatcher prints the message and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** Errors about the user's input, as opposed to bugs. Both exit 2; only bugs may print a stack. */
export const isInputError = (e: Error): boolean =>
  [
    'UsageError',
    'ScenarioError',
    'TraceFormatError',
    'ImportError',
    'ProfileError',
    'WriteError',
    'MemoryBudgetError',
    'WindowError',
    'ToolError',
  ].includes(e.name) || 'code' in e;

// stderr carries only text for people, so control characters from inputs are escaped there on the way
// out; stdout may carry JSON, which escapes them itself, so each text output escapes its own.
export const processIo = (): CliIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(escapeControlsKeepLines(t)),
  cwd: process.cwd(),
});
