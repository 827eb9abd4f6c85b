// The simulator profile setting: "h200" is built in; anything else is a profile JSON's path.
export type ProfileRef = { builtIn: string } | { path: string };

const BUILT_IN = new Set(['h200']);

export function resolveProfileSetting(value: unknown, workspaceRoot: string | undefined): ProfileRef {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!v || BUILT_IN.has(v.toLowerCase())) return { builtIn: v.toLowerCase() || 'h200' };
  if (/^([a-zA-Z]:)?[\\/]/.test(v) || !workspaceRoot) return { path: v };
  return { path: `${workspaceRoot.replace(/[\\/]+$/, '')}/${v}` };
}
