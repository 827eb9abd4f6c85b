// `syncscope mcp`: the CLI's questions as tools of a Model Context Protocol server, so that a coding
// agent can ask why a line waits, what to fix first and what the fix would save. Each tool is a thin
// adapter over the same core calls as the CLI; this file registers them, with their schemas, and
// turns what goes wrong into an error answer that says what was wrong.
import { McpServer, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../package.json';
import { escapeControlsKeepLines } from '../../core/terminal';
import { isInputError } from '../io';
import { sourceTextReader } from '../../node/source-text';
import type { Answer } from '../../core/agent/answer';
import { DATA, TOOLS, toolDescription } from '../../core/agent/catalog';
import { INPUTS, OUTPUTS, READ_TOOLS, type ToolName } from '../../core/agent/schemas';
import { readToolAnswer } from '../../core/agent/tools';
import { loadForTool } from './load';
import { captureAnswer, profileAnswer, type RunContext } from './runs';

export interface ServeOptions {
  /** Paths in tool arguments are relative to it. */
  cwd: string;
  /** --allow-run: `profile` and `capture` may run programs. */
  allowRun: boolean;
}

/** Serves on this process's stdin and stdout until the client closes stdin; a run in progress is then stopped. */
export async function serve(o: ServeOptions): Promise<void> {
  const stop = new AbortController();
  const server = createServer({ ...o, stopped: stop.signal });
  const closed = new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
  });
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await closed;
  stop.abort();
  await server.close();
}

interface ServerOptions extends ServeOptions {
  /** Aborted when the server stops: runs in progress stop too. */
  stopped: AbortSignal;
}

/** Where the tools that run a program may run: only where the server was started so. */
const GATE = 'Runs only when the server was started with --allow-run.';
/** A tool's title and description, from the catalog both adapters share. */
const presented = (name: ToolName) => ({ title: TOOLS[name].title, description: toolDescription(name, GATE) });

const INSTRUCTIONS = `Syncscope shows when and why a program's host thread waited for the GPU: every wait, the GPU op that released it and the line that launched that op, findings (ordering bugs, needless syncs) and what fixing each would save, simulated. Every tool takes the path of a trace (a PyTorch profiler trace, a Syncscope capture or trace) or a *.scenario.json file. Start with report or findings; ask waits about a line. profile and capture run programs, only when the server was started with --allow-run. ${DATA}`;

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const RUNS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };

export function createServer(o: ServerOptions): McpServer {
  const server = new McpServer({ name: 'syncscope', version }, { instructions: INSTRUCTIONS });
  const code = sourceTextReader(o.cwd);

  // The tools that read a trace: one registration each, answered by core as the editor's tools are.
  for (const name of READ_TOOLS)
    server.registerTool(
      name,
      {
        ...presented(name),
        inputSchema: INPUTS[name] as typeof INPUTS.report,
        outputSchema: OUTPUTS[name] as typeof OUTPUTS.report,
        annotations: READ_ONLY,
      },
      answering(async (a) => readToolAnswer(name, await loadForTool(a.path, o.cwd), a as never, code)),
    );
  server.registerTool(
    'profile',
    {
      ...presented('profile'),
      inputSchema: INPUTS.profile,
      outputSchema: OUTPUTS.run,
      annotations: RUNS,
    },
    answering(async (a, extra) => profileAnswer(a, runContext(o, extra))),
  );
  server.registerTool(
    'capture',
    {
      ...presented('capture'),
      inputSchema: INPUTS.capture,
      outputSchema: OUTPUTS.run,
      annotations: RUNS,
    },
    answering(async (a, extra) => captureAnswer(a, runContext(o, extra))),
  );
  return server;
}

type Extra = Parameters<ToolCallback<typeof INPUTS.report>>[1];

/** A tool's answer as the protocol carries it, or an error answer that says what went wrong. */
function answering<A>(
  answer: (args: A, extra: Extra) => Promise<Answer>,
): (args: A, extra: Extra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      const { text, data } = await answer(args, extra);
      return { content: [{ type: 'text', text }], structuredContent: data as Record<string, unknown> };
    } catch (e) {
      const err = e as Error;
      const text = isInputError(err) ? err.message : `${err.message} (an error in Syncscope itself)`;
      return { content: [{ type: 'text', text: escapeControlsKeepLines(text) }], isError: true };
    }
  };
}

function runContext(o: ServerOptions, extra: Extra): RunContext {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return {
    cwd: o.cwd,
    allowed: o.allowRun,
    signal: AbortSignal.any([extra.signal, o.stopped]),
    progress: (message) => {
      if (token === undefined) return;
      const params = { progressToken: token, progress: ++progress, message };
      extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
    },
  };
}
