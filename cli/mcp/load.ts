// The trace or scenario a tool names, loaded as `syncscope report` loads it, then analysed by core
// (core/agent/subject.ts). An agent asks several questions of one file in a row (its waits, then its
// findings, then one fix), so the last file stays loaded until it changes on disk or another is asked for.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { toolSubject, type ToolSubject as Loaded } from '../../core/agent/subject';
import { loadInput } from '../input';
import { UsageError, type CliIo } from '../io';

let last: { key: string; loaded: Loaded } | undefined;

/** Loads `file` (resolved against `cwd`); a missing file or a directory is a UsageError that says so. */
export async function loadForTool(file: string, cwd: string): Promise<Loaded> {
  const full = resolve(cwd, file);
  const s = await stat(full).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new UsageError(`no such file: ${file} (looked for ${full})`);
    throw new UsageError(`cannot read ${file}: ${e.code ?? e.message}`);
  });
  if (!s.isFile()) throw new UsageError(`${file} is not a file; expected a trace or a *.scenario.json file`);
  const key = `${full}\0${s.mtimeMs}\0${s.size}`;
  if (last?.key === key) return last.loaded;
  last = undefined;
  const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd };
  const { trace, program } = await loadInput(file, io);
  const loaded = toolSubject(trace, program);
  last = { key, loaded };
  return loaded;
}
