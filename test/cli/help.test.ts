// CLI conventions: --help / -h / help, --version, the usage line after a usage error, and the
// README's command table, all from the commands' specs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSpec } from '../../cli/args';
import { optionLabel, usageLines } from '../../cli/help';
import { COMMANDS } from '../../cli/main';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';

const specs = COMMANDS.map((c) => c.spec);

test('<command> --help and -h print its usage and every option, and exit 0', async () => {
  for (const spec of specs) {
    for (const flag of ['--help', '-h']) {
      const r = await runCli([spec.name, flag]);
      assert.equal(r.code, 0, `${spec.name} ${flag}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.ok(r.stdout.startsWith(`usage: ${usageLines(spec)[0]}\n`), r.stdout);
      assert.ok(r.stdout.includes(spec.summary), spec.name);
      for (const o of spec.options)
        assert.match(
          r.stdout,
          new RegExp(`\\n  ${escape(optionLabel(o))} +${escape(o.help)}\\n`),
          `${spec.name} --${o.name}`,
        );
    }
  }
  assert.equal((await runCli(['help', 'capture'])).stdout, (await runCli(['capture', '--help'])).stdout);
});

test('--help wins over other arguments, even a wrong one', async () => {
  const r = await runCli(['report', 'nope.scenario.json', '--jsn', '--help']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: syncscope report /);
});

test('--help, -h and help print the overview with every command; no command prints it as an error', async () => {
  for (const flag of ['--help', '-h', 'help']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0);
    for (const s of specs) assert.match(r.stdout, new RegExp(`\\n  ${s.name} +${escape(s.summary)}\\n`));
  }
  const none = await runCli([]);
  assert.equal(none.code, 2);
  assert.equal(none.stderr, (await runCli(['--help'])).stdout);
});

test('--version prints the version of package.json', async () => {
  const r = await runCli(['--version']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, JSON.parse(readFileSync(repoPath('package.json'), 'utf8')).version + '\n');
});

test('an unknown option exits 2 with the message, then the usage line', async () => {
  const r = await runCli(['report', 'examples/pipeline-fixed.scenario.json', '--jsn']);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'syncscope report: unknown option --jsn (options: --profile, --max-steps, --group, --user-code, --json)\nusage: syncscope report <scenario|trace> [options]\n',
  );
  const capture = await runCli(['capture', '--bogus', '--', 'true']);
  assert.equal(capture.code, 2);
  assert.match(
    capture.stderr,
    /\nusage: syncscope capture \[options\] -- <command\.\.\.>\n {7}syncscope capture --raw <file\.raw> \[options\]\n$/,
  );
});

test('--help after -- belongs to the captured program', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-help-'));
  const library = join(dir, 'libsyncscope_capture.so');
  writeFileSync(library, '');
  const before = process.env.SYNCSCOPE_CAPTURE_LIB;
  process.env.SYNCSCOPE_CAPTURE_LIB = library;
  try {
    const r = await runCli(['capture', '--', 'sh', '-c', 'echo "$@" > args.txt', 'sh', '--help', '-h'], dir);
    assert.equal(readFileSync(join(dir, 'args.txt'), 'utf8'), '--help -h\n');
    assert.doesNotMatch(r.stdout, /usage:/);
    // The stand-in program never initialises CUDA, so nothing was captured.
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^syncscope capture: nothing was captured: "sh -c .* sh --help -h" exited with code 0/);
  } finally {
    if (before === undefined) delete process.env.SYNCSCOPE_CAPTURE_LIB;
    else process.env.SYNCSCOPE_CAPTURE_LIB = before;
  }
});

test("the README's command table lists every command as its spec does", () => {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const table = ['| command | what it does | options |', '| --- | --- | --- |', ...specs.map(readmeRow)].join('\n');
  assert.ok(readme.includes(table + '\n'), `README.md should hold this table:\n${table}`);
});

const cell = (text: string) => '`' + text.replaceAll('|', '\\|') + '`';
const readmeRow = (s: CommandSpec) =>
  `| ${usageLines(s).map(cell).join('<br>')} | ${s.summary} | ${s.options.map((o) => cell(optionLabel(o))).join(' ') || ''} |`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
