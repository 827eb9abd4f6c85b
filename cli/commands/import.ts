import { resolve } from 'node:path';
import { releasingOps } from '../../core/analyze/describe';
import { escapeControls } from '../../core/terminal';
import { isWait } from '../../core/trace/kinds';
import { callKind, Trace } from '../../core/trace/model';
import { CommandSpec, onePositional, OPTIONS, parseArgs, userCodeFlag } from '../args';
import { CliIo, EXIT } from '../io';
import { loadAnyTrace } from '../load-trace';
import { checkTraceOutputs, writeTraceOutputs } from '../output';

export const spec: CommandSpec = {
  name: 'import',
  synopsis: ['<pytorch-trace.json> [options]'],
  summary: 'convert a PyTorch profiler trace and print one summary line',
  options: [{ ...OPTIONS.traceOut, help: 'write the converted trace' }, OPTIONS.parquet, OPTIONS.userCode],
};

/** `import <pytorch-trace.json> [--out x.syncscope.json]`: one summary line, and the trace if asked. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  checkTraceOutputs(args);
  const file = onePositional(args, 'PyTorch profiler trace');
  const trace = await loadAnyTrace(resolve(io.cwd, file), undefined, userCodeFlag(args));
  io.stdout(escapeControls(summary(file, trace)) + '\n');
  for (const path of await writeTraceOutputs(trace, args, io)) io.stdout(`wrote ${path}\n`);
  return EXIT.ok;
}

export function summary(file: string, t: Trace): string {
  const threads = t.lanes.filter((l) => l.kind === 'thread').length;
  let contexts = 0;
  let waits = 0;
  let released = 0;
  let unknown = 0;
  for (let i = 0; i < t.calls.count; i++) {
    if (callKind(t, i) === 'context') contexts++;
    else if (isWait(t, i)) {
      waits++;
      const by = releasingOps(t, i);
      if (by === null) unknown++;
      else if (by.length) released++;
    }
  }
  const notes = t.meta.notes?.length ? `; notes: ${t.meta.notes.join('; ')}` : '';
  return (
    `${file}: ${t.lanes.length} lanes (${threads} host threads, ${t.lanes.length - threads} streams), ` +
    `${t.calls.count - contexts} calls (+${contexts} framework ops), ${t.ops.count} ops, ` +
    `${waits} host waits (${released} released by a named op, ${unknown} unknown)${notes}`
  );
}
