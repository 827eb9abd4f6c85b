// Shared by the analysis tests: scenario text -> compileScenario -> simulate -> analyze.
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { str, type Trace } from '../../core/trace/model';

export interface ScenarioSpec {
  name?: string;
  device?: Record<string, unknown>;
  devices?: Record<string, unknown>;
  streams?: Record<string, unknown>;
  events?: Record<string, unknown>;
  buffers?: Record<string, unknown>;
  steps?: unknown[];
  threads?: Record<string, unknown[]>;
}

/** One step per line, so that a step's line in the text is easy to find. */
export function scenarioText(spec: ScenarioSpec): string {
  const { steps, threads, ...rest } = spec;
  const head = JSON.stringify({ name: 'test', ...rest }).slice(0, -1);
  const list = (s: unknown[]) => '[\n' + s.map((x) => '    ' + JSON.stringify(x)).join(',\n') + '\n  ]';
  const body = threads
    ? `"threads": {\n` +
      Object.entries(threads)
        .map(([k, v]) => `  ${JSON.stringify(k)}: ${list(v)}`)
        .join(',\n') +
      '\n}'
    : `"steps": ${list(steps ?? [])}`;
  return `${head},\n${body}\n}\n`;
}

export function run(spec: ScenarioSpec | string) {
  const text = typeof spec === 'string' ? spec : scenarioText(spec);
  const program = compileScenario(text, 'test.scenario.json');
  const trace = simulate(program);
  return { text, program, trace, analysis: analyze(trace, { program }) };
}

export const kinds = (a: { findings: { kind: string }[] }): string[] => a.findings.map((f) => f.kind);

/** Ops of a trace by name (the first with that name). */
export const opNamed = (t: Trace, name: string): number => {
  for (let j = 0; j < t.ops.count; j++) if (str(t, t.ops.name[j]) === name) return j;
  throw new Error(`no op named ${name}`);
};

/** The line of the step in `text` whose JSON contains `needle`. */
export const lineOf = (text: string, needle: string): number =>
  text.split('\n').findIndex((l) => l.includes(needle)) + 1;
