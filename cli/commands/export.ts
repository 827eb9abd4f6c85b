import { resolve } from 'node:path';
import { analyze } from '../../core/analyze';
import { chromeTraceChunks } from '../../core/export/chrome';
import { CommandSpec, flagString, onePositional, OPTIONS, parseArgs } from '../args';
import { CliIo, EXIT, UsageError } from '../io';
import { loadInput } from '../input';
import { writeFileAtomic } from '../../node/atomic-write';

export const spec: CommandSpec = {
  name: 'export',
  synopsis: ['<trace|scenario> --chrome <out.json> [options]'],
  summary: 'write Chrome trace-event JSON for Perfetto or chrome://tracing',
  options: [
    { name: 'chrome', value: 'out.json', help: 'where to write the Chrome trace' },
    OPTIONS.profile,
    OPTIONS.maxSteps,
  ],
};

/** `export <trace|scenario|pytorch> --chrome out.json`: a file for Perfetto or chrome://tracing. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const file = onePositional(args, 'scenario or trace file');
  const chrome = flagString(args, 'chrome');
  if (!chrome) throw new UsageError('say where to write: --chrome out.json');
  const { trace, program, memory } = await loadInput(file, io, {
    profile: flagString(args, 'profile'),
    maxSteps: flagString(args, 'max-steps'),
  });
  // Findings become instant events; a trace saved without them gets them now.
  if (!trace.findings.length) trace.findings.push(...analyze(trace, { program, memory }).findings);
  const full = resolve(io.cwd, chrome);
  await writeFileAtomic(full, chromeTraceChunks(trace));
  io.stdout(
    `wrote ${full}: ${trace.calls.count} calls, ${trace.ops.count} ops, ${trace.edges.count} flows, ` +
      `${trace.findings.length} findings (open it in ui.perfetto.dev or chrome://tracing)\n`,
  );
  return EXIT.ok;
}
