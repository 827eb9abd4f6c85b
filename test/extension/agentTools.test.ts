// The tools of `syncscope mcp` as the editor's language-model tools: the manifest carries core's
// catalog and input schemas unchanged, activation registers each by its manifest name, and each
// answers once, against the built extension with a stand-in `vscode` (./standIn.ts) and its real
// worker (dist/worker.js), over recorded traces: the values are those test/cli/mcp.test.ts reads by
// hand from `syncscope report` of the same files. Bad arguments, a missing file, no open trace, and
// the tools that run a program outside a trusted workspace are errors that say what was wrong.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as z from 'zod';
import { EDITOR_INPUTS } from '../../core/agent/schemas';
import { AGENT_TOOL_NAMES, agentToolName, languageModelTool } from '../../extension/logic/agentTools';
import { repoRoot } from '../helpers/paths';
import { bundle, loadExtension, manifest, type Loaded } from './standIn';

const skip = !existsSync(bundle) && 'npm run build first';
const PROFILE = 'test/fixtures/torch/profile/train_step.profile.json.gz';

interface Tool {
  invoke(o: { input: unknown }, token: unknown): Promise<{ content: { value: string }[] }>;
  prepareInvocation?(
    o: { input: unknown },
    token: unknown,
  ): { confirmationMessages?: { title: string; message: string } };
}

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };

let ext: Loaded | undefined;
before(() => {
  if (!skip) ext = loadExtension(bundle, { folder: repoRoot });
});
after(() => {
  for (const s of ext?.subscriptions ?? []) s.dispose();
});

const toolOf = (name: string): Tool => ext!.registered.tools.get(agentToolName(name as never)) as Tool;
const answer = async (name: string, input: unknown): Promise<string> =>
  (await toolOf(name).invoke({ input }, token)).content.map((p) => p.value).join('');
async function refusal(name: string, input: unknown): Promise<string> {
  try {
    await toolOf(name).invoke({ input }, token);
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail(`${name} should refuse ${JSON.stringify(input)}`);
}

test("the manifest's language-model tools are core's catalog, with its input schemas as JSON Schema", () => {
  const expected = AGENT_TOOL_NAMES.map((name) => {
    const { $schema, ...schema } = z.toJSONSchema(EDITOR_INPUTS[name]) as Record<string, unknown>;
    assert.ok($schema);
    return languageModelTool(name, schema);
  });
  assert.deepEqual(manifest.contributes.languageModelTools, expected);
  assert.deepEqual(
    expected.map((t) => t.name),
    [
      'syncscope_report',
      'syncscope_waits',
      'syncscope_findings',
      'syncscope_whatif',
      'syncscope_profile',
      'syncscope_capture',
    ],
  );
  for (const t of expected)
    assert.equal(t.when, /profile|capture/.test(t.name as string) ? 'isWorkspaceTrusted' : undefined, t.name as string);
});

test('activation registers every contributed tool', { skip }, () => {
  assert.deepEqual(
    [...ext!.registered.tools.keys()].sort(),
    (manifest.contributes.languageModelTools as { name: string }[]).map((t) => t.name).sort(),
  );
});

test(
  'the tools that read a trace answer over a recorded profile, as syncscope mcp does',
  { skip, timeout: 120_000 },
  async () => {
    const report = await answer('report', { path: PROFILE, top: 1 });
    assert.match(report, /^test\/fixtures\/torch\/profile\/train_step\.profile\.json\.gz \(pytorch\)\n/);
    assert.match(report, /\nMetrics: host blocked 1\.9%, GPU busy 9\.8%, overlap 0\.0%\n/);
    assert.match(report, /\nHost waits \(29\): 26 streamSync, 2 deviceSync, 1 memcpy\n/);
    assert.match(report, /\n {2}#5258 streamSync\(stream 7\) on thread 922 \(python3\) at 856 ms: blocked 4\.08 ms\n/);

    const waits = await answer('waits', { path: PROFILE, file: 'train_step.py', line: 25, limit: 3 });
    assert.match(waits, /; 10 at file train_step\.py, line 25; largest blocked time first:\n/);
    assert.match(waits, /\n7 more matching waits left out \(limit 3\)$/);

    const findings = await answer('findings', { path: PROFILE });
    assert.match(
      findings,
      /: 4 findings, largest predicted saving first \(fixes simulated with the h200 profile over 9 iterations, iteration 2 to iteration 10, from a run of calls that repeats; iteration 1 left out: warm-up, 29\.9x the median iteration\):\n/,
    );

    const whatif = await answer('whatif', { path: PROFILE, id: 'F3' });
    assert.match(whatif, /move 9 synchronize steps to the thread's next host wait \(where the value is next needed\)/);
  },
);

test('bad arguments, a missing file and no open trace are errors that say what was wrong', { skip }, async () => {
  assert.equal(
    await refusal('waits', { path: PROFILE, line: 'twelve' }),
    'waits: line: Invalid input: expected number, received string (waits takes path, file, line, kind, limit)',
  );
  assert.match(
    await refusal('report', { path: PROFILE, colour: 'red' }),
    /^report: Unrecognized key: "colour" \(report takes path, top\)$/,
  );
  assert.match(
    await refusal('whatif', { path: PROFILE, id: 'F9' }),
    /: no finding F9; the trace has F1 to F4 \(the findings tool lists them\)$/,
  );
  assert.equal(
    await refusal('report', { path: 'no/such.json' }),
    `no such file: no/such.json (looked for ${repoRoot}/no/such.json)`,
  );
  assert.equal(
    await refusal('findings', {}),
    'no trace is open in the editor; give path: a trace or *.scenario.json file of the workspace',
  );
});

test('profile and capture ask before running, and run nothing in an untrusted workspace', { skip }, async () => {
  const ask = toolOf('profile').prepareInvocation!(
    { input: { python: 'python3', script: 'train.py', args: ['--steps', '3'] } },
    token,
  );
  assert.equal(ask.confirmationMessages?.title, 'Profile a Python script?');
  assert.match(
    ask.confirmationMessages?.message ?? '',
    /\n\npython3 train\.py --steps 3\n\nThe trace goes to profile\.json\.gz\.$/,
  );
  const cap = toolOf('capture').prepareInvocation!({ input: { command: ['sh', '-c', 'rm -rf x'] } }, token);
  assert.match(cap.confirmationMessages?.message ?? '', /\n\nsh -c "rm -rf x"\n\n/);
  assert.equal(
    await refusal('profile', { python: 'python3', script: 'train.py' }),
    'profile runs a program, which needs a trusted workspace; trust this workspace first',
  );
  assert.equal(
    await refusal('capture', { command: ['true'] }),
    'capture runs a program, which needs a trusted workspace; trust this workspace first',
  );
});
