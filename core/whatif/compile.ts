// The scenario made from a trace, compiled from its tree of values (./emit.ts), not its text.
import { compileTree } from '../scenario/parse';
import type { Program } from '../scenario/program';
import type { GeneratedScenario } from './from-trace';

/** The file name a generated scenario's program and errors carry. */
export const GENERATED_FILE = 'generated.scenario.json';

/**
 * Compile the generated scenario (of `threads`, edited, or its own steps) from its values, not its text;
 * its errors would be a bug in the generator, so they are thrown as one. No file holds the scenario,
 * so the error names no position in one.
 */
export function compileGenerated(g: GeneratedScenario, threads = g.threads): Program {
  const { program, errors } = compileTree(g.tree(threads), GENERATED_FILE);
  if (!program)
    throw new Error(
      `the scenario made from the trace does not compile, which is a bug in Syncscope: ${errors[0]?.detail ?? 'no error given'}; please report it with the trace`,
    );
  return program;
}
