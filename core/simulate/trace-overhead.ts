// What recording a trace costs the traced program's host: a profiler's callback on every CUDA call and
// every record_function range, a capture's on every CUDA call. A host gap in a trace includes that
// cost, so a what-if that keeps the gaps as they were overstates what a fix saves. A profile may carry
// a named model of it (docs/simulator.md, "Trace overhead"): costs per trace kind, measured on a GPU.
// Without one, nothing is subtracted, and every prediction says that no overhead was measured.

/** How a trace was recorded: torch.profiler's settings, or a CUPTI capture. */
export const TRACE_KINDS = ['profiler-default', 'profiler-stacks', 'profiler-cuda-sync', 'capture'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

export interface TraceOverheadCost {
  /** Host time the recorder adds to each CUDA runtime call. */
  perCudaCallNs: number;
  /** Host time the recorder adds to each record_function range (a framework op); 0 for a capture. */
  perRecordFunctionNs: number;
}

export interface TraceOverhead {
  /** Where the numbers came from, as in "h200 torch 2.11 probe 2027-01-10". */
  name: string;
  /** The costs of each kind of trace that was measured; a kind left out subtracts nothing. */
  kinds: Partial<Record<TraceKind, TraceOverheadCost>>;
}

/** What a prediction says when the profile has no model of the trace kind: nothing was subtracted. */
export const NONE_MEASURED = 'none measured';

/** The costs a trace of `kind` is corrected by, or undefined where the profile has none. */
export function overheadCost(model: TraceOverhead | undefined, kind: TraceKind): TraceOverheadCost | undefined {
  return model?.kinds[kind];
}

/** A profile's `traceOverhead` field, checked: a name, and per known trace kind two non-negative numbers; throws what is wrong. */
export function parseTraceOverhead(json: unknown): TraceOverhead {
  const where = 'profile.traceOverhead';
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${where}: expected an object with "name" and "kinds", got ${JSON.stringify(json)}`);
  const { name, kinds, ...rest } = json as Record<string, unknown>;
  const stray = Object.keys(rest)[0];
  if (stray !== undefined) throw new Error(`${where}.${stray}: unknown field; fields are name, kinds`);
  if (typeof name !== 'string' || name === '')
    throw new Error(`${where}.name: expected a non-empty string saying where the numbers came from`);
  if (typeof kinds !== 'object' || kinds === null || Array.isArray(kinds))
    throw new Error(`${where}.kinds: expected an object keyed by ${TRACE_KINDS.join(', ')}`);
  const out: TraceOverhead = { name, kinds: {} };
  for (const [kind, cost] of Object.entries(kinds)) {
    if (!(TRACE_KINDS as readonly string[]).includes(kind))
      throw new Error(`${where}.kinds.${kind}: unknown trace kind; kinds are ${TRACE_KINDS.join(', ')}`);
    out.kinds[kind as TraceKind] = parseCost(cost, `${where}.kinds.${kind}`);
  }
  return out;
}

function parseCost(json: unknown, where: string): TraceOverheadCost {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${where}: expected {"perCudaCallNs": n, "perRecordFunctionNs": n}`);
  const out: TraceOverheadCost = { perCudaCallNs: 0, perRecordFunctionNs: 0 };
  for (const [key, value] of Object.entries(json)) {
    if (key !== 'perCudaCallNs' && key !== 'perRecordFunctionNs')
      throw new Error(`${where}.${key}: unknown field; fields are perCudaCallNs, perRecordFunctionNs`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new Error(`${where}.${key}: expected a number of at least 0, got ${JSON.stringify(value)}`);
    out[key] = value;
  }
  return out;
}
