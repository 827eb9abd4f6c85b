// `syncscope`: the command-line face of the same core the extension uses. It runs the main job
// on a machine without VS Code and without a GPU. Each command lives in commands/<name>.ts, with
// its spec (usage, options, summary) beside its `run`.
import { version } from '../package.json';
import { CommandSpec, HelpRequest } from './args';
import * as calibrate from './commands/calibrate';
import * as capture from './commands/capture';
import * as check from './commands/check';
import * as devices from './commands/devices';
import * as exportCommand from './commands/export';
import * as html from './commands/html';
import * as importCommand from './commands/import';
import * as mcp from './commands/mcp';
import * as profile from './commands/profile';
import * as replay from './commands/replay';
import * as whatif from './commands/whatif';
import * as report from './commands/report';
import * as run from './commands/run';
import * as scenario from './commands/scenario';
import * as simulate from './commands/simulate';
import { commandHelp, overview, usageText } from './help';
import { escapeControls, escapeControlsKeepLines } from '../core/terminal';
import { CliIo, EXIT, isInputError, UsageError } from './io';
import { useNativeGraph } from '../node/native-kineto';

type Command = { spec: CommandSpec; run(argv: string[], io: CliIo): Promise<number> };

/** The commands, in the order the overview and the README list them. */
export const COMMANDS: Command[] = [
  simulate,
  run,
  report,
  check,
  importCommand,
  exportCommand,
  html,
  devices,
  calibrate,
  capture,
  profile,
  scenario,
  replay,
  whatif,
  mcp,
];

const find = (name: string | undefined) => COMMANDS.find((c) => c.spec.name === name);
const OVERVIEW = new Set(['--help', '-h', 'help']);

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const specs = COMMANDS.map((c) => c.spec);
  if (!name) {
    io.stderr(overview(specs));
    return EXIT.usage;
  }
  if (name === '--version') {
    io.stdout(`${version}\n`);
    return EXIT.ok;
  }
  if (OVERVIEW.has(name)) {
    // `syncscope help <command>` is the same as `syncscope <command> --help`.
    const topic = find(rest[0]);
    io.stdout(topic ? commandHelp(topic.spec) : overview(specs));
    return EXIT.ok;
  }
  const cmd = find(name);
  if (!cmd) {
    io.stderr(`syncscope: unknown command "${escapeControls(name)}"\n${overview(specs)}`);
    return EXIT.usage;
  }
  // A command's analyses build their happens-before graphs natively where the trace addon loads.
  useNativeGraph();
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    if (e instanceof HelpRequest) {
      io.stdout(commandHelp(cmd.spec));
      return EXIT.ok;
    }
    // One clear line first; a stack only for what is a bug in Syncscope, not in the input.
    const err = e as Error;
    io.stderr(`syncscope ${name}: ${escapeControlsKeepLines(err.message)}\n`);
    if (err instanceof UsageError) io.stderr(usageText(cmd.spec));
    else if (!isInputError(err) && process.env.SYNCSCOPE_DEBUG) io.stderr(`${err.stack}\n`);
    return EXIT.usage;
  }
}
