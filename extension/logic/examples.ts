// The example scenarios offered by "New Scenario from Example…", described by their own
// "name" and "description" so the list never drifts from the files.
import { parse } from 'jsonc-parser/lib/esm/main.js'; // the ESM entry bundles; the UMD one does not

export interface ExampleInfo {
  file: string;
  name: string;
  description?: string;
}

export function exampleInfo(file: string, text: string): ExampleInfo {
  const v = parse(text) as { name?: unknown; description?: unknown } | undefined;
  const name = typeof v?.name === 'string' ? v.name : file.replace(/\.scenario\.json$/, '');
  return { file, name, description: typeof v?.description === 'string' ? v.description : undefined };
}

/** Seed examples first (they answer the walkthrough's question), then by name. */
export function orderExamples(list: ExampleInfo[]): ExampleInfo[] {
  const seed = (e: ExampleInfo): number => (e.file.startsWith('seed') ? 0 : 1);
  return [...list].sort((a, b) => seed(a) - seed(b) || a.name.localeCompare(b.name));
}

/** A file name in the target folder that does not clash with `taken`. */
export function freeName(file: string, taken: ReadonlySet<string>): string {
  if (!taken.has(file)) return file;
  const base = file.replace(/\.scenario\.json$/, '');
  for (let i = 2; ; i++) {
    const candidate = `${base}-${i}.scenario.json`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The example's text as written into the user's folder. Its `"$schema"` line is a path into the
 * extension's tree that does not resolve there; the contributed jsonValidation supplies the schema
 * for every *.scenario.json instead. The rest of the text, comments and layout, stays as it is.
 */
export function exampleCopyText(text: string): string {
  return text.replace(/^[ \t]*"\$schema"[ \t]*:[ \t]*"[^"\n]*",[ \t]*\r?\n/m, '');
}
