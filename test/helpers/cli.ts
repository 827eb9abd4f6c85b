import { main } from '../../cli/main';
import { repoRoot } from './paths';

/** Runs the CLI in-process and returns what a user would see. */
export async function runCli(
  argv: string[],
  cwd = repoRoot,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd });
  return { code, stdout, stderr };
}
