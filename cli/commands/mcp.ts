import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as McpBundle from '../mcp/server';
import { CommandSpec, parseArgs } from '../args';
import { CliIo, EXIT, UsageError } from '../io';

export const spec: CommandSpec = {
  name: 'mcp',
  synopsis: ['[--allow-run]'],
  summary: 'serve the waits, findings, what-if and report to coding agents: an MCP server on stdio (docs/mcp.md)',
  options: [{ name: 'allow-run', help: 'let the profile and capture tools run the programs an agent names' }],
};

/**
 * The server and the SDK are a bundle of their own beside this one (dist/mcp.js), loaded by this
 * command only, so that the SDK costs the other commands no start-up time.
 */
const BUNDLE = 'mcp.js';

/**
 * `mcp [--allow-run]`: a Model Context Protocol server on stdin and stdout, until the client closes
 * stdin. stdout carries only the protocol; what the server says to a person goes to stderr.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  if (args.positional.length)
    throw new UsageError(`mcp takes no file; each tool names its own (got ${args.positional[0]})`);
  const bundle = join(__dirname, BUNDLE);
  if (!existsSync(bundle)) throw new UsageError(`${bundle}: the MCP server is missing; rebuild Syncscope`);
  const { serve } = createRequire(__filename)(bundle) as typeof McpBundle;
  const allowRun = args.flags.has('allow-run');
  io.stderr(`syncscope mcp: serving on stdio${allowRun ? '; the profile and capture tools may run programs' : ''}\n`);
  await serve({ cwd: io.cwd, allowRun });
  return EXIT.ok;
}
