// Activation as VS Code does it, against a stand-in `vscode` module (./standIn.ts): what it
// registers, and that it loads nothing it does not need yet. How long it takes is measured by
// bench/activation.bench.ts, not asserted here. Runs only after `npm run build` (dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { repoPath } from '../helpers/paths';
import { bundle, loadExtension, manifest } from './standIn';

const skip = !existsSync(bundle) && 'npm run build first';
const dist = (name: string) => repoPath('dist', name);

test('activation registers every contributed command, editor and the panel serializer', { skip }, () => {
  const { registered: reg } = loadExtension();
  const contributed = (manifest.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual([...reg.commands].sort(), contributed);
  assert.deepEqual(
    reg.editors.sort(),
    (manifest.contributes.customEditors as { viewType: string }[]).map((e) => e.viewType).sort(),
  );
  const revived = (manifest.activationEvents as string[])
    .filter((e) => e.startsWith('onWebviewPanel:'))
    .map((e) => e.slice('onWebviewPanel:'.length));
  assert.deepEqual(reg.serializers, revived);
  // Scenarios' Run | Simulate lens, and Python files' host waits.
  assert.equal(reg.lenses, 2);
});

test('activation loads neither the native addon, the runner, nor the simulator and analyses', { skip }, () => {
  for (const f of ['engines.js', 'runner.js']) delete require.cache[dist(f)];
  const loaded = loadExtension();
  assert.deepEqual(loaded.dlopened, [], 'no native library is opened');
  const cached = Object.keys(require.cache);
  assert.ok(cached.includes(bundle));
  for (const f of ['engines.js', 'runner.js']) assert.ok(!cached.includes(dist(f)), `dist/${f} is not loaded`);
  assert.ok(!cached.some((f) => f.endsWith('.node')), 'no addon in the module cache');
  // The bundle asks only for node's built-ins and vscode: the rest is inside it or loaded later.
  const foreign = loaded.requests.filter((r) => r !== bundle && r !== 'vscode' && !isBuiltin(r));
  assert.deepEqual(foreign, []);
  assert.equal(typeof loaded.reportedMs, 'number');
});

test(
  'the engines bundle loaded on first use simulates an example as core does',
  { skip: !existsSync(dist('engines.js')) && 'npm run build first' },
  () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built bundle, loaded as VS Code loads it
    const engines = require(dist('engines.js')) as typeof import('../../extension/engines');
    const file = 'seed-side-stream-event-sync.scenario.json';
    const text = readFileSync(join(repoPath('examples'), file), 'utf8');
    const parsed = engines.parseScenarioText(text, file);
    assert.deepEqual(parsed.errors, []);
    assert.ok(parsed.program);
    const trace = engines.simulateProgram(parsed.program, engines.loadSimulatorProfile('h200'));
    const reference = simulate(compileScenario(text, file));
    assert.deepEqual(
      [trace.calls.count, trace.ops.count, [...trace.calls.end]],
      [reference.calls.count, reference.ops.count, [...reference.calls.end]],
    );
    const explain = (a: { waits: { id: number; releasedBy: { name: string }[] | null }[] }) =>
      a.waits.map((w) => [w.id, w.releasedBy?.map((r) => r.name)]);
    assert.deepEqual(
      explain(engines.analyzeTrace(trace, parsed.program)),
      explain(analyze(reference, { program: parsed.program })),
    );
  },
);
