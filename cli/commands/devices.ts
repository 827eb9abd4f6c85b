import { devicesInRunner } from '../../runner/client';
import { CommandSpec, parseArgs } from '../args';
import { CliIo, EXIT } from '../io';

export const spec: CommandSpec = {
  name: 'devices',
  synopsis: ['[options]'],
  summary: 'list NVIDIA GPUs, or say why there are none',
  options: [{ name: 'json', help: 'print the list as JSON' }],
};

/** `devices`: the CUDA devices the native runtime sees, asked in a runner process. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, spec.options);
  const list = await devicesInRunner({ timeoutMs: 60_000 });
  if (args.flags.has('json')) {
    io.stdout(JSON.stringify(list, null, 2) + '\n');
    return EXIT.ok;
  }
  for (const d of list) {
    const mem = d.totalMem ? `, ${(d.totalMem / 2 ** 30).toFixed(1)} GiB` : '';
    io.stdout(
      `${d.index}: ${d.name} (compute ${d.computeCapability}, ${d.sms} SMs${mem}), CUDA driver ${Math.floor(d.cudaDriverVersion / 1000)}.${(d.cudaDriverVersion % 1000) / 10}\n`,
    );
  }
  return EXIT.ok;
}
