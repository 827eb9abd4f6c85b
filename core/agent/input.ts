// A tool call's arguments checked against the tool's input schema (schemas.ts) before anything
// runs, for an adapter whose protocol does not check them itself (the editor's language-model
// tools): each wrong argument named, with what it should be.
import type * as z from 'zod';

/** Bad arguments, or a question the trace cannot answer: said to the agent, never a bug. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** `limit: too big: expected number to be <=100; line: expected number, received string`. */
function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const at = i.path.map(String).join('.');
      return at ? `${at}: ${i.message}` : i.message;
    })
    .join('; ');
}

/** The arguments as the schema reads them, or a ToolError that names each wrong one and the arguments the tool takes. */
export function parseToolInput<S extends z.ZodObject>(tool: string, schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const takes = Object.keys(schema.shape).join(', ');
  throw new ToolError(`${tool}: ${issuesText(parsed.error)} (${tool} takes ${takes})`);
}
