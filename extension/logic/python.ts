// Which Python runs a profiled script: the Python extension's selected interpreter when that
// extension is installed and answers, else the `syncscope.pythonPath` setting, else `python3`.
// The Python extension is never a dependency: its API is read through guards, since any version
// (or none) may be installed. Free of `vscode`, so it is unit-tested under node.

/** The part of ms-python.python's exported API read here (`environments`). */
interface PythonEnvironments {
  getActiveEnvironmentPath?: (resource?: unknown) => { path?: unknown } | undefined;
  resolveEnvironment?: (env: unknown) => Promise<{ executable?: { uri?: { fsPath?: unknown } } } | undefined>;
}

/** The interpreter the Python extension selected for `resource`, if its API says; never throws. */
export async function selectedInterpreter(api: unknown, resource?: unknown): Promise<string | undefined> {
  try {
    const envs = (api as { environments?: PythonEnvironments } | undefined)?.environments;
    const active = envs?.getActiveEnvironmentPath?.(resource);
    if (!active) return undefined;
    const resolved = await envs?.resolveEnvironment?.(active);
    const exe = resolved?.executable?.uri?.fsPath;
    if (typeof exe === 'string' && exe) return exe;
    return typeof active.path === 'string' && active.path ? active.path : undefined;
  } catch {
    return undefined;
  }
}

/** The first of: the Python extension's choice, the setting, `python3`. */
export const pickInterpreter = (selected: string | undefined, setting: string | undefined): string =>
  selected || setting?.trim() || 'python3';
