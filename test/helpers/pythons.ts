// The CPython interpreters this machine has, one per minor version from 3.9 to 3.13: on PATH
// (python3.X) or under pyenv's versions. Shared by the Python stack reader's test and benchmark.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export function interpreters(): Map<number, string> {
  const found = new Map<number, string>();
  const pyenv = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
  const versions = existsSync(pyenv) ? readdirSync(pyenv) : [];
  for (let minor = 9; minor <= 13; minor++) {
    const onPath = (process.env.PATH ?? '')
      .split(delimiter)
      .map((d) => join(d, `python3.${minor}`))
      .find((p) => existsSync(p));
    const underPyenv = versions
      .filter((v) => v.startsWith(`3.${minor}.`))
      .map((v) => join(pyenv, v, 'bin', `python3.${minor}`))
      .find((p) => existsSync(p));
    const python = underPyenv ?? onPath;
    if (python) found.set(minor, python);
  }
  return found;
}
