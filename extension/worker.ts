// The worker thread that parses, imports, simulates and analyses for the editor (dist/worker.js).
// It answers one request at a time through logic/engineClient.ts, which bounds its time and memory
// and terminates it when a file is too costly; the extension host itself never runs this work.
import { parentPort, type TransferListItem } from 'node:worker_threads';
import type { Trace } from '../core/trace/model';
import * as engines from './engines';
import type { WorkerReply, WorkerRequest } from './logic/engineClient';
import type { EngineOps, OpName } from './logic/engineOps';

type Handlers = { [K in OpName]: (args: EngineOps[K]['args'], id: number) => Promise<EngineOps[K]['result']> };

const port = parentPort;
if (!port) throw new Error('dist/worker.js runs as a worker thread');
const post = (reply: WorkerReply, transfer: TransferListItem[] = []): void => port.postMessage(reply, transfer);
const progress = (id: number) => (bytes: number, total: number) => post({ id, type: 'progress', bytes, total });

const handlers: Handlers = {
  async scenario({ text, file, profile, simulateUpTo }) {
    const parsed = engines.parseScenarioText(text, file);
    if (!parsed.program || parsed.errors.length) return { errors: parsed.errors };
    const { program } = parsed;
    if (program.stepCount > simulateUpTo) return { errors: [], stepCount: program.stepCount };
    const trace = engines.simulateProgram(program, engines.loadSimulatorProfile(profile));
    const analysis = engines.analyzeTrace(trace, program);
    trace.findings = analysis.findings;
    return { errors: [], stepCount: program.stepCount, trace, analysis };
  },
  async parse({ text, file }) {
    return engines.parseScenarioText(text, file);
  },
  async analyze({ trace, program }) {
    return engines.analyzeTrace(trace, program);
  },
  async loadTrace({ path, bytes, name, userCode }, id) {
    const trace =
      path !== undefined
        ? await engines.loadTrace(path, progress(id), undefined, userCode)
        : await engines.loadTraceBytes(bytes ?? new Uint8Array(), name, progress(id), undefined, userCode);
    shareColumns(trace);
    try {
      // The findings go with the trace; the waits' explanations do not: the page makes its waits
      // from the trace's columns, and a trace's millions of them, as objects, would cost the
      // extension host a structured clone and their memory (the agent tools analyse it again).
      trace.findings = engines.analyzeTrace(trace).findings;
      return { trace };
    } catch (e) {
      return { trace, analysisError: (e as Error).message };
    }
  },
  async sniff({ path, bytes }) {
    return path !== undefined ? engines.sniffTraceFile(path) : engines.sniffTraceBytes(bytes ?? new Uint8Array());
  },
  async chrome({ trace }) {
    return engines.chromeTraceJson(trace);
  },
  async whatIf({ trace, profile, finding }) {
    return engines.simulateFix(trace, engines.loadSimulatorProfile(profile), finding);
  },
  async overview({ trace, profile }) {
    return engines.overviewOf(trace, engines.loadSimulatorProfile(profile));
  },
  async fixSavings({ trace, profile }) {
    return engines.fixSavings(trace, engines.loadSimulatorProfile(profile));
  },
  async scenarioText({ trace, profile }) {
    return engines.scenarioOfTrace(trace, engines.loadSimulatorProfile(profile));
  },
  async agentCheck({ tool, input }) {
    return engines.checkToolInput(tool, input);
  },
  async agentAnswer({ tool, input, path, trace, analysis, root }) {
    return engines.answerReadTool(tool, input, path, trace, analysis, root);
  },
  async agentRunAnswer({ trace, analysis, path, failure, output }) {
    return engines.answerRun(trace, path, failure, output, analysis);
  },
};

/**
 * Puts a read trace's columns in shared memory, copied here, on the worker's thread. The extension
 * host keeps the trace and sends it back to a worker for its overview, each fix simulated, each
 * agent's answer: shared columns go without a copy, where a gigabyte of them would be copied on
 * the extension host's thread each time and held twice. Nothing writes a trace's columns once it is
 * read.
 */
function shareColumns(trace: Trace): void {
  for (const table of [trace.calls, trace.ops, trace.edges, trace.accesses]) {
    const columns = table as unknown as Record<string, unknown>;
    for (const [key, column] of Object.entries(columns)) {
      if (!ArrayBuffer.isView(column) || column instanceof DataView) continue;
      const typed = column as Uint8Array;
      const shared = new (typed.constructor as Uint8ArrayConstructor)(new SharedArrayBuffer(typed.byteLength));
      shared.set(typed);
      columns[key] = shared;
    }
  }
}

/** The column buffers of every trace in a result: moved to the host rather than copied (shared ones go as they are). */
function traceBuffers(result: unknown): ArrayBuffer[] {
  const trace = (result as { trace?: Trace } | undefined)?.trace;
  if (!trace) return [];
  const buffers = new Set<ArrayBuffer>();
  for (const table of [trace.calls, trace.ops, trace.edges, trace.accesses])
    for (const column of Object.values(table))
      if (ArrayBuffer.isView(column) && column.buffer instanceof ArrayBuffer) buffers.add(column.buffer);
  return [...buffers];
}

port.on('message', (req: WorkerRequest) => {
  const handler = handlers[req.op as OpName] as ((args: unknown, id: number) => Promise<unknown>) | undefined;
  if (!handler) return post({ id: req.id, type: 'failed', message: `unknown request "${req.op}"` });
  handler(req.args, req.id).then(
    (result) => {
      try {
        post({ id: req.id, type: 'done', result }, traceBuffers(result));
      } catch {
        // A buffer that cannot move (one shared with others) is copied instead.
        post({ id: req.id, type: 'done', result });
      }
    },
    (e: unknown) => post({ id: req.id, type: 'failed', message: e instanceof Error ? e.message : String(e) }),
  );
});
