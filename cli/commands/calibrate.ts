import { calibrateInRunner } from '../../runner/client';
import { flagString, parseArgs } from '../args';
import { CliIo, EXIT } from '../io';
import { writeChunks } from '../../node/trace-file';
import { resolve } from 'node:path';

/** `calibrate [--out profile.json]`: measure the simulator's cost model on this machine's GPU. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { valued: ['out', 'device'] });
  const device = Number(flagString(args, 'device') ?? 0);
  const profile = await calibrateInRunner({ device, onProgress: (m) => io.stderr(`${m}\n`) });
  const text = JSON.stringify(profile, null, 2) + '\n';
  const out = flagString(args, 'out');
  if (!out) {
    io.stdout(text);
    return EXIT.ok;
  }
  const full = resolve(io.cwd, out);
  await writeChunks(full, [text]);
  io.stderr(`profile written to ${full}\n`);
  return EXIT.ok;
}
