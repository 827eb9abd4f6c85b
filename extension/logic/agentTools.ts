// What the editor's language-model tools say of themselves and of the programs they would run, free
// of `vscode` so it is unit-tested under node. Their names, titles and descriptions come from
// core's catalog, which `syncscope mcp` presents too; package.json carries them as
// languageModelTools, and test/extension/agentTools.test.ts keeps the two equal.
import { TOOLS, toolDescription } from '../../core/agent/catalog';
import type { ToolName } from '../../core/agent/schemas';

export const AGENT_TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** The tool's name in the editor: `syncscope_waits`. */
export const agentToolName = (name: ToolName): string => `syncscope_${name}`;
/** The name a prompt references it by: `#syncscopeWaits`. */
export const agentToolReference = (name: ToolName): string => `syncscope${name[0].toUpperCase()}${name.slice(1)}`;

/** Where the editor's tools that run a program may run. */
export const EDITOR_GATE = 'Runs only in a trusted workspace, once the user confirms the command line.';

/** A tool's entry in package.json's languageModelTools, with its input schema as JSON Schema. */
export function languageModelTool(name: ToolName, inputSchema: object): Record<string, unknown> {
  const runs = TOOLS[name].runs;
  return {
    name: agentToolName(name),
    displayName: `Syncscope: ${TOOLS[name].title}`,
    modelDescription: toolDescription(name, EDITOR_GATE),
    userDescription: TOOLS[name].title,
    toolReferenceName: agentToolReference(name),
    canBeReferencedInPrompt: true,
    tags: ['syncscope', 'gpu', 'cuda', runs ? 'runs-program' : 'trace'],
    ...(runs ? { when: 'isWorkspaceTrusted' } : {}),
    inputSchema,
  };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The command line a run would start, as the confirmation shows it (the arguments unchecked yet: only their strings). */
export function runCommandLine(tool: 'profile' | 'capture', input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const words =
    tool === 'profile' ? [text(i.python), text(i.script), ...strings(i.args)].filter(Boolean) : strings(i.command);
  return words.map((w) => (/^[\w./:=@%+-]+$/.test(w) ? w : JSON.stringify(w))).join(' ');
}

/** What the chat shows while the run goes. */
export const runInvocationText = (tool: 'profile' | 'capture', input: unknown): string =>
  `${tool === 'profile' ? 'Profiling' : 'Capturing'} ${runCommandLine(tool, input)}`;

/** The question the user answers before a program runs. */
export function runConfirmation(
  tool: 'profile' | 'capture',
  input: unknown,
  cwd: string | undefined,
): { title: string; message: string } {
  const how =
    tool === 'profile'
      ? 'under torch.profiler, recording its host waits and the GPU ops that released them'
      : 'under the capture library, recording every CUDA call and GPU op it makes';
  const out = text((input as Record<string, unknown> | undefined)?.out);
  const where = cwd ? ` in ${cwd}` : '';
  return {
    title: tool === 'profile' ? 'Profile a Python script?' : 'Capture a program?',
    message: `Syncscope will run this command${where}, ${how}:\n\n${runCommandLine(tool, input)}\n\nThe trace goes to ${out || (tool === 'profile' ? 'profile.json.gz' : 'capture.syncscope.json')}.`,
  };
}
