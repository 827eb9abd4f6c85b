import { calibrateInRunner } from '../../runner/client';
import { CommandSpec, flagString, parseArgs } from '../args';
import { CliIo, EXIT } from '../io';
import { writeFileAtomic } from '../../node/atomic-write';
import { resolve } from 'node:path';

export const spec: CommandSpec = {
  name: 'calibrate',
  synopsis: ['[options]'],
  summary: "measure the simulator's cost model on this GPU",
  options: [
    { name: 'out', short: 'o', value: 'profile.json', help: 'write the profile there instead of to stdout' },
    { name: 'device', value: 'index', help: 'the CUDA device to measure (default 0)' },
  ],
};

/** `calibrate [--out profile.json]`: measure the simulator's cost model on this machine's GPU. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const device = Number(flagString(args, 'device') ?? 0);
  const profile = await calibrateInRunner({ device, onProgress: (m) => io.stderr(`${m}\n`) });
  const text = JSON.stringify(profile, null, 2) + '\n';
  const out = flagString(args, 'out');
  if (!out) {
    io.stdout(text);
    return EXIT.ok;
  }
  const full = resolve(io.cwd, out);
  await writeFileAtomic(full, [text]);
  io.stderr(`profile written to ${full}\n`);
  return EXIT.ok;
}
