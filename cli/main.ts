// `syncscope`: the command-line face of the same core the extension uses. It runs the main job
// on a machine without VS Code and without a GPU. Each command lives in commands/<name>.ts.
import { CliIo, EXIT, UsageError } from './io';

type Command = { run(argv: string[], io: CliIo): Promise<number> };

const COMMANDS: Record<string, { load: () => Promise<Command>; usage: string }> = {
  simulate: { load: () => import('./commands/simulate'), usage: 'simulate <scenario> [--out trace.syncscope.json] [--html timeline.html] [--profile h200|file.json] [--json]' },
  run: { load: () => import('./commands/run'), usage: 'run <scenario> [--backend gpu|sim|auto] [--out trace.syncscope.json] [--html timeline.html]' },
  report: { load: () => import('./commands/report'), usage: 'report <scenario|trace> [--group source|context|kind] [--json]' },
  check: { load: () => import('./commands/check'), usage: 'check <scenario|trace>   (exit 1 on error-severity findings)' },
  import: { load: () => import('./commands/import'), usage: 'import <pytorch-trace.json> [--out trace.syncscope.json]' },
  export: { load: () => import('./commands/export'), usage: 'export <trace|scenario> --chrome out.json' },
  html: { load: () => import('./commands/html'), usage: 'html <trace|scenario> -o timeline.html' },
  devices: { load: () => import('./commands/devices'), usage: 'devices' },
  calibrate: { load: () => import('./commands/calibrate'), usage: 'calibrate [--out profile.json]' },
  capture: { load: () => import('./commands/capture'), usage: 'capture [--out trace.syncscope.json] [--html timeline.html] [--json] [--keep-raw f.raw] -- <command...>  |  capture --raw f.raw' },
};

export function usage(): string {
  return ['usage: syncscope <command> ...', '', ...Object.values(COMMANDS).map((c) => '  syncscope ' + c.usage), ''].join('\n');
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? io.stdout : io.stderr)(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.stderr(`syncscope: unknown command "${name}"\n${usage()}`);
    return EXIT.usage;
  }
  try {
    return await (await cmd.load()).run(rest, io);
  } catch (e) {
    // One clear line first; a stack only for what is a bug in Syncscope, not in the input.
    const err = e as Error;
    io.stderr(`syncscope ${name}: ${err.message}\n`);
    if (err instanceof UsageError) io.stderr(`usage: syncscope ${cmd.usage}\n`);
    else if (!isInputError(err) && process.env.SYNCSCOPE_DEBUG) io.stderr(`${err.stack}\n`);
    return EXIT.usage;
  }
}

/** Errors about the user's input, as opposed to bugs. Both exit 2; only bugs may print a stack. */
const isInputError = (e: Error) => ['UsageError', 'ScenarioError', 'TraceFormatError', 'ImportError'].includes(e.name) || 'code' in e;
