// What each tool for coding agents takes and gives back, as zod schemas, for both of its adapters:
// `syncscope mcp` (cli/mcp/), whose SDK checks every call's arguments against the first and publishes
// the second as the tool's output schema, and the editor's language-model tools (extension/), whose
// manifest carries the first as JSON Schema (test/extension/agentTools.test.ts keeps them equal) and
// which check a call's arguments with parseToolInput. A wrong type or an unknown name is an error
// that names it.
import * as z from 'zod';
import { CALL_KINDS } from '../trace/kinds';
import { STEP_ON, STEP_ON_HELP } from '../import/step-on';

/** Steps run first with no recorder, timing the script's own speed (TraceMeta.plainStep). */
const PLAIN_STEPS = z
  .number()
  .int()
  .min(0)
  .max(10000)
  .optional()
  .describe(
    "steps run first with no recorder, timing the script's own speed, to which the what-if scales the trace (default 0: none)",
  );

/** At most this many items in one answer (waits, findings, changed waits). */
export const MAX_ITEMS = 100;

const FILES =
  'a trace (*.syncscope.json, *.syncscope, a PyTorch profiler trace *.json or *.json.gz, a Chrome trace) or a *.scenario.json file';
/** The MCP server's: a file, relative to its working directory. */
const serverPath = z.string().min(1).describe(`${FILES}, relative to the server's working directory`);
/** The editor's: a file relative to the workspace folder, or none for the trace open in the editor. */
const editorPath = z
  .string()
  .min(1)
  .optional()
  .describe(`${FILES}, relative to the workspace folder; leave it out for the trace open in the editor`);
const limit = (fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_ITEMS)
    .optional()
    .describe(`how many to list (default ${fallback}, at most ${MAX_ITEMS})`);
const findingId = z
  .string()
  .regex(/^[Ff]\d{1,6}$/, 'expected a finding id as the findings tool gives it, as in F2')
  .describe('the finding, as the findings tool numbers it (F1, F2, ...)');

/** The inputs of every tool, with `path` as the adapter takes it. */
const inputs = <P extends z.ZodType>(path: P) => ({
  waits: z.strictObject({
    path,
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        "only waits at this source file (a path, or its end: train.py); a scenario's waits are in the scenario",
      ),
    line: z.number().int().min(1).optional().describe('only waits at this line (of any frame of the call stack)'),
    kind: z
      .enum(CALL_KINDS)
      .optional()
      .describe('only waits of this kind (streamSync, deviceSync, eventSync, memcpy, ...)'),
    limit: limit(10),
  }),
  findings: z.strictObject({ path, limit: limit(20) }),
  whatif: z.strictObject({
    path,
    id: findingId,
    steps: z
      .string()
      .regex(/^\d{1,9}:\d{1,9}$/, 'expected two ProfilerStep numbers, as in 3:5')
      .optional()
      .describe('simulate only ProfilerStep#a to #b of a PyTorch trace, as in 3:5'),
  }),
  report: z.strictObject({
    path,
    top: z.number().int().min(0).max(20).optional().describe('how many of the longest waits to list (default 5)'),
  }),
  profile: z.strictObject({
    python: z.string().min(1).describe('the Python interpreter, as in python3 or .venv/bin/python'),
    script: z.string().min(1).describe('the script to profile, relative to the working directory'),
    args: z.array(z.string()).max(1000).optional().describe("the script's arguments"),
    out: z.string().min(1).optional().describe('where to write the profiler trace (default profile.json.gz)'),
    steps: z.number().int().min(1).max(10000).optional().describe('steps to record after a warm-up (default 5)'),
    stepOn: z.string().max(1000).regex(STEP_ON).optional().describe(STEP_ON_HELP),
    plainSteps: PLAIN_STEPS,
    seconds: z
      .number()
      .positive()
      .max(86400)
      .optional()
      .describe('until the first step ends, record up to this many seconds (default 60)'),
  }),
  capture: z.strictObject({
    command: z
      .array(z.string().min(1))
      .min(1)
      .max(1000)
      .describe('the program and its arguments, as in ["python3", "train.py"]'),
    out: z.string().min(1).optional().describe('where to write the trace (default capture.syncscope.json)'),
    plainSteps: PLAIN_STEPS.describe(
      'for a Python script (the command is [python, script.py, ...]): first run it alone for 2 + plainSteps steps, timing its own speed, to which the what-if scales the capture (default 0: none)',
    ),
    stepOn: z.string().max(1000).regex(STEP_ON).optional().describe(`with plainSteps: ${STEP_ON_HELP}`),
  }),
});

/** The MCP server's inputs: every tool that reads a file names it. */
export const INPUTS = inputs(serverPath);
/** The editor's: a tool that reads a trace may leave `path` out, for the one open in the editor. */
export const EDITOR_INPUTS = inputs(editorPath);
export type ToolName = keyof typeof INPUTS;
/** The tools that read a trace; the others run a program. */
export const READ_TOOLS = ['report', 'waits', 'findings', 'whatif'] as const satisfies readonly ToolName[];
export type ReadToolName = (typeof READ_TOOLS)[number];

const frame = z.object({ file: z.string(), line: z.number(), function: z.string() });
const siteSource = z.object({
  file: z.string(),
  line: z.number(),
  function: z.string(),
  precision: z.enum(['line', 'function']),
});
/** A scenario step's position, or an imported call's innermost user frame. */
const source = z.union([z.object({ line: z.number(), column: z.number() }), siteSource]);
const op = { op: z.number(), name: z.string(), stream: z.string() };

export const waitItem = z.object({
  id: z.number().describe('the call id of the wait'),
  kind: z.string(),
  thread: z.string(),
  target: z.string().describe('the event or stream waited on ("device" for a device-wide wait)'),
  beginNs: z.number(),
  blockedNs: z.number(),
  releasedBy: z
    .array(
      z.object({
        ...op,
        how: z.enum(['exact', 'deduced', 'timing']),
        source: siteSource.optional().describe("the line of the user's code that launched the op"),
        queuedBehind: z
          .object({
            op: z.number(),
            name: z.string(),
            source: siteSource.optional(),
            ops: z.number().describe('how many ops of the stream ended while the host waited, this one the last'),
            busyNs: z.number().describe('their GPU time within the wait'),
          })
          .optional()
          .describe('the op it queued behind on its stream, where that work was most of the wait'),
      }),
    )
    .nullable()
    .describe('the GPU ops that released the wait; empty when nothing was pending, null when the trace cannot tell'),
  unblockLatencyNs: z.number().nullable(),
  candidates: z.array(z.object(op)).optional(),
  narrower: z
    .object({ kind: z.literal('eventSync'), savedNs: z.number(), op: z.number(), deduced: z.literal(true).optional() })
    .optional()
    .describe('an event wait on op would have released the host savedNs sooner; deduced: the trace lists no buffers'),
  context: z.string().optional().describe('enclosing framework ops, outermost first'),
  source: source.optional().describe("where the user's code waited"),
  stack: z.array(frame).optional().describe('the call stack, innermost first'),
  stackLeftOut: z.number().optional(),
});

const kindCounts = z.record(z.string(), z.number());
const metrics = z.object({ hostBlockedPct: z.number(), gpuBusyPct: z.number(), overlapPct: z.number() });
const outcome = z.object({ hostNs: z.number(), gpuBusyNs: z.number(), doneNs: z.number() });

export const OUTPUTS = {
  waits: z.object({
    file: z.string(),
    totalWaits: z.number(),
    byKind: kindCounts.describe('every wait of the trace, counted by kind'),
    matched: z.number().describe('waits that pass the filters'),
    leftOut: z.number().describe('matching waits not listed (the limit, or the size of the answer)'),
    waits: z.array(waitItem).describe('largest blocked time first'),
    linesWithWaits: z
      .array(z.object({ file: z.string(), line: z.number(), waits: z.number(), blockedNs: z.number() }))
      .optional()
      .describe('where no wait matched a file or line: the lines that do wait, most blocked first'),
  }),
  findings: z.object({
    file: z.string(),
    profile: z.string().describe('the simulator profile of the predictions'),
    window: z
      .string()
      .describe('the recorded window the fixes were simulated over: its iterations, how found, those left out and why'),
    total: z.number(),
    leftOut: z.number(),
    findings: z
      .array(
        z.object({
          id: z.string().describe('the id the whatif tool takes'),
          rule: z.string(),
          kind: z.string(),
          severity: z.string(),
          message: z.string(),
          fix: z.string().optional(),
          source: source.optional(),
          context: z.string().optional().describe('where no call of the finding has a line: the op context of one'),
          stack: z.array(frame).optional(),
          calls: z.array(z.number()).describe('the first calls the finding names (wait ids among them)'),
          callCount: z.number(),
          predictedSavingNs: z
            .number()
            .optional()
            .describe(
              "host time the simulated fix saves over the window; negative where the fix costs time (a race's added wait)",
            ),
          predictedSavingPerIterationNs: z
            .number()
            .optional()
            .describe('the same per iteration of the window, where iterations were found'),
          prediction: z.string().describe('the simulated edit, or why there is no fix to simulate'),
        }),
      )
      .describe('largest predicted saving first; findings without one after, errors first, then in report order'),
  }),
  whatif: z.object({
    file: z.string(),
    id: z.string(),
    kind: z.string(),
    message: z.string(),
    profile: z.string(),
    applied: z.boolean(),
    edit: z.string().describe('what the simulated edit does, or why it cannot apply'),
    before: outcome,
    after: outcome.optional(),
    savingNs: z
      .number()
      .optional()
      .describe('time saved until the work is done (host and GPU); negative where the fix costs time'),
    waits: z
      .array(z.object({ call: z.number(), name: z.string(), beforeNs: z.number(), afterNs: z.number().optional() }))
      .describe('waits that disappear (no afterNs) or shrink'),
    waitsLeftOut: z.number(),
  }),
  report: z.object({
    file: z.string(),
    source: z.string().describe('what made the trace: simulator, gpu, capture, pytorch, chrome'),
    name: z.string().optional(),
    metrics,
    waits: z.number(),
    byKind: kindCounts,
    findings: z.number(),
    topWaits: z.array(waitItem).describe('the waits that blocked longest, largest first'),
  }),
  run: z.object({
    trace: z.string().describe('the absolute path of the trace written; the other tools take it'),
    failure: z.string().optional().describe('what went wrong; the trace holds what was recorded until then'),
    output: z.string().describe("the end of the program's own output"),
    metrics,
    waits: z.number(),
    findings: z.number(),
  }),
};
