// The texts of `--help`, the usage line printed on a usage error and the overview, all made from
// the commands' specs so that they cannot drift apart.
import type { CliOption, CommandSpec } from './args';

export const usageLines = (spec: CommandSpec): string[] => spec.synopsis.map((s) => `syncscope ${spec.name} ${s}`);

/** `usage: syncscope x ...`, one line per form, as printed after a usage error. */
export const usageText = (spec: CommandSpec): string =>
  usageLines(spec)
    .map((l, i) => (i ? '       ' : 'usage: ') + l + '\n')
    .join('');

export const optionLabel = (o: CliOption): string =>
  (o.short ? `-${o.short}, ` : '') + `--${o.name}` + (o.value ? ` <${o.value}>` : '');

const HELP_OPTION: CliOption = { name: 'help', short: 'h', help: 'show this help' };

export function commandHelp(spec: CommandSpec): string {
  return `${usageText(spec)}\n${spec.summary}\n\noptions:\n${table([...spec.options, HELP_OPTION].map((o) => [optionLabel(o), o.help]))}`;
}

export function overview(specs: CommandSpec[]): string {
  return (
    'usage: syncscope <command> [options]\n\ncommands:\n' +
    table(specs.map((s) => [s.name, s.summary])) +
    '\nsyncscope <command> --help lists the options of a command; syncscope --version prints the version.\n'
  );
}

function table(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}\n`).join('');
}
