// The user journeys, each in a real VS Code (code-server) with the packaged .vsix installed, in
// order, in one window: install, open a scenario, simulate from the palette, ask a wait what
// released it, see a buggy scenario's findings in Problems, open a saved trace, reload.
// Screenshots go to test-results/e2e/ for a person to look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { importPytorch } from '../../core/import/pytorch';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { traceToJson } from '../../core/trace/json';
import { OP_KINDS } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { shotsDir, skipReason, Workbench } from './workbench';

const skip = skipReason();
const version = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')).version as string;
// The workspace is the project's own examples folder, as a user who copied it would have.
const examples = repoPath('examples');
const files: Record<string, string> = Object.fromEntries(
  readdirSync(examples)
    .filter((f) => f.endsWith('.scenario.json'))
    .map((f) => [f, readFileSync(join(examples, f), 'utf8')]),
);
const SCENARIO = 'seed-side-stream-event-sync.scenario.json';
const SAVED = 'seed-side-stream-event-sync.syncscope.json';
const BUGGY = 'wait-before-record-buggy.scenario.json';
const TORCH = 'sync_seeds.pt.trace.json';

/** What core says about a scenario: the numbers the journeys compare the UI against. */
function expected(name: string) {
  const program = compileScenario(files[name], name);
  const trace = simulate(program);
  return { program, trace, analysis: analyze(trace, { program }) };
}

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    const saved = expected(SCENARIO).trace;
    const torch = readFileSync(repoPath('test', 'fixtures', 'torch', 'sync_seeds.json'), 'utf8');
    wb = await Workbench.start({ ...files, [SAVED]: traceToJson(saved), [TORCH]: torch });
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

/** The webview whose header shows `title`: several timelines may be open at once. */
async function timelineFrame(title = SCENARIO, timeoutMs = 30_000): Promise<Frame> {
  const frame = await wb.webviewFrame('h1.title', timeoutMs, title);
  // A trace file opens on its overview; a scenario on its timeline.
  await wb.showTimeline(frame, timeoutMs, title !== SCENARIO);
  await frame.locator('canvas.plot-canvas').waitFor({ timeout: 30_000 });
  return frame;
}

/** Resolves once the webview has painted two more frames: what a screenshot should show. (Page code is a string: no DOM types here.) */
const painted = (frame: Frame): Promise<void> =>
  frame.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())))');

test('the .vsix installs into a fresh VS Code and the extension activates', { skip, timeout: 120_000 }, async () => {
  assert.ok(wb.installed().includes(`syncscope.syncscope@${version}`), wb.installed().join(', '));
  // The GPU probe answers after activation: the item settles on the GPU's name or "no GPU".
  const item = wb.page.locator('.statusbar-item', { hasText: /Simulator \(no GPU\)|GPU: / }).first();
  await item.waitFor({ timeout: 30_000 });
  assert.match(await item.innerText(), /Simulator \(no GPU\)|GPU: \S+/);
  await wb.shot('01-status-bar');
  assert.match(wb.extensionLog(), /activated in \d+(\.\d+)? ms/);
  // VS Code's own account of the activation: code loading plus the activate call.
  await wb.command('Developer: Show Running Extensions');
  const row = wb.page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: 'Syncscope' }).first();
  await row.waitFor({ timeout: 30_000 });
  const activation = /(\d+)\s*ms/.exec(await row.innerText());
  assert.ok(activation, await row.innerText());
  // How long it took is measured, not asserted: bench/activation.bench.ts reads this record.
  writeFileSync(
    join(shotsDir, 'running-extensions.json'),
    JSON.stringify({ activationMs: Number(activation[1]), row: await row.innerText() }),
  );
  console.log(`# VS Code reports Syncscope's activation took ${activation[1]} ms`);
  await wb.shot('01b-running-extensions');
  await wb.page.keyboard.press('Control+W');
});

test('opening a scenario shows the Run on GPU | Simulate lens above it', { skip, timeout: 60_000 }, async () => {
  await wb.openFile(SCENARIO);
  const lens = wb.page.locator('.contentWidgets .codelens-decoration, .codelens-decoration').first();
  await lens.waitFor({ timeout: 30_000 });
  assert.match(await lens.innerText(), /Simulate/);
  await wb.shot('02-codelens');
});

test(
  'Simulate Scenario from the palette opens the timeline beside the scenario',
  { skip, timeout: 90_000 },
  async () => {
    await wb.page.keyboard.press('F1');
    await wb.page.locator('.quick-input-widget input').fill('>Syncscope: ');
    await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Simulate Scenario' }).first().waitFor();
    await wb.shot('03-palette');
    await wb.page.keyboard.press('Escape');
    // Room for the timeline, as a user would make it.
    await wb.command('View: Close Primary Side Bar');
    await wb.command('Syncscope: Simulate Scenario');
    await wb.page.locator('.tab', { hasText: `Simulated: ${SCENARIO}` }).waitFor({ timeout: 30_000 });
    const frame = await timelineFrame();
    const rows = await frame.locator('.row-header .row-title').allInnerTexts();
    const { trace } = expected(SCENARIO);
    for (const lane of trace.lanes)
      assert.ok(
        rows.some((r) => r.includes(lane.name)),
        `row for ${lane.name} in ${rows.join(' | ')}`,
      );
    await painted(frame);
    await wb.shot('04-timeline');
    const { analysis } = expected(SCENARIO);
    assert.match(
      wb.extensionLog(),
      new RegExp(`simulator run of ${SCENARIO.replace(/\./g, '\\.')}: \\d+ steps, ${analysis.waits.length} host waits`),
    );
  },
);

test('clicking a wait on the host row names the op that released it', { skip, timeout: 90_000 }, async () => {
  const frame = await timelineFrame();
  const { trace, analysis } = expected(SCENARIO);
  const canvas = frame.locator('canvas.plot-canvas');
  const box = await canvas.boundingBox();
  const header = await frame.locator('.row-header.thread').first().boundingBox();
  assert.ok(box && header, 'canvas and host row are laid out');
  const y = header.y + header.height / 2 - box.y;
  const title = frame.locator('.details .details-title');
  let found: string | undefined;
  // Sweep along the host row as a user would, until a click lands on a synchronize call.
  for (let f = 0.04; f < 0.98 && !found; f += 0.03) {
    await canvas.click({ position: { x: box.width * f, y } });
    const t = (await title.count()) ? await title.innerText() : '';
    if (/Synchronize/.test(t)) found = t.trim();
  }
  assert.ok(found, 'a click on the host row selected a synchronize call');
  // Which call that is, in the same simulated trace: its API name and the line the details link to.
  const reveal = await frame.locator('.details button.reveal').innerText();
  const line = Number(/line (\d+)/.exec(reveal)?.[1]);
  const calls = [...Array(trace.calls.count).keys()].filter(
    (i) => trace.strings[trace.calls.name[i]] === found && trace.calls.line[i] === line,
  );
  assert.equal(calls.length, 1, `one ${found} call on line ${line}`);
  const op = trace.calls.releasedBy[calls[0]];
  assert.ok(op >= 0, `the trace names the op that released ${found}`);
  const opName = trace.strings[trace.ops.name[op]] || OP_KINDS[trace.ops.kind[op]];
  const stream = trace.lanes[trace.ops.lane[op]].name;
  const released = await frame
    .locator('.details dt', { hasText: 'Released by' })
    .locator('xpath=following-sibling::dd[1]')
    .innerText();
  assert.ok(released.includes(opName), `"${released}" names ${opName}`);
  assert.ok(released.includes(stream), `"${released}" names stream ${stream}`);
  await wb.shot('05-wait-details');
  // The details link back to the scenario line that made the call, the line core's analysis names.
  const wait = analysis.waits.find((w) => w.id === calls[0]);
  assert.equal(wait?.source?.line, line);
  await frame.locator('.details button.reveal').click();
  await wb.page
    .locator('.statusbar-item', { hasText: `Ln ${line},` })
    .first()
    .waitFor({ timeout: 15_000 });
});

test(
  'a buggy scenario puts its findings in the Problems panel, on their lines',
  { skip, timeout: 90_000 },
  async () => {
    const { analysis } = expected(BUGGY);
    assert.ok(analysis.findings.length > 0, 'core finds the bug');
    await wb.openFile(BUGGY);
    await wb.command('Syncscope: Show Findings');
    const rows = wb.page.locator('.markers-panel .monaco-list-row');
    await rows.first().waitFor({ timeout: 30_000 });
    const f = analysis.findings.find((x) => x.rule === 'S9') ?? analysis.findings[0];
    const row = wb.page.locator('.markers-panel .monaco-list-row', { hasText: f.message.slice(0, 40) }).first();
    await row.waitFor({ timeout: 30_000 });
    const text = await row.innerText();
    assert.ok(text.includes(f.rule), `rule ${f.rule} in "${text}"`);
    assert.ok(text.includes(`[Ln ${f.source!.line}`), `line ${f.source!.line} in "${text}"`);
    await wb.shot('06-problems');
  },
);

test('a saved .syncscope.json trace opens in the timeline editor', { skip, timeout: 90_000 }, async () => {
  await wb.openFile(SAVED);
  await wb.page.locator('.tab.active', { hasText: SAVED }).waitFor({ timeout: 30_000 });
  const frame = await timelineFrame(SAVED);
  const rows = await frame.locator('.row-header .row-title').allInnerTexts();
  for (const lane of expected(SCENARIO).trace.lanes)
    assert.ok(
      rows.some((r) => r.includes(lane.name)),
      `row for ${lane.name} in ${rows.join(' | ')}`,
    );
  assert.equal(
    await wb.page.locator('.editor-instance .monaco-editor .view-lines').filter({ hasText: 'syncscope-trace' }).count(),
    0,
    'the file is not shown as JSON text',
  );
  await wb.shot('07-trace-editor');
});

test(
  'after Developer: Reload Window the timeline panel and the trace editor come back',
  { skip, timeout: 120_000 },
  async () => {
    await wb.page.keyboard.press('Escape');
    await wb.page.locator('.tab', { hasText: `Simulated: ${SCENARIO}` }).click();
    await wb.reload();
    const tab = wb.page.locator('.tab', { hasText: `Simulated: ${SCENARIO}` });
    await tab.waitFor({ timeout: 60_000 });
    await tab.click();
    const restored = (title: string) =>
      timelineFrame(title, 60_000).catch(async (e) => {
        await wb.shot('08-after-reload-failed');
        writeFileSync(
          join(shotsDir, '08-after-reload-failed.txt'),
          `${wb.extensionLog()}\n--- frames\n${await wb.report()}`,
        );
        throw e;
      });
    const frame = await restored(SCENARIO);
    const rows = await frame.locator('.row-header .row-title').allInnerTexts();
    for (const lane of expected(SCENARIO).trace.lanes)
      assert.ok(
        rows.some((r) => r.includes(lane.name)),
        `row for ${lane.name} in ${rows.join(' | ')}`,
      );
    // The saved trace's editor was restored at the same moment: the race that once left one blank.
    await wb.page.locator('.tab', { hasText: SAVED }).first().click();
    const editor = await restored(SAVED);
    await painted(frame);
    await painted(editor);
    // Browser-hosted VS Code can leave one of two webviews restored together blank; the extension
    // then opens it in a new webview (extension/logic/blankWatch.ts). Say when that happened.
    for (const line of wb.extensionLog().match(/^.*stayed blank.*$/gm) ?? []) console.log(`# ${line}`);
    await wb.shot('08-after-reload');
  },
);

test('a PyTorch profiler trace imports into the timeline editor', { skip, timeout: 90_000 }, async () => {
  await wb.commandOnceListed('Syncscope: Import PyTorch Profiler Trace…');
  // The web workbench asks for the file in its own path box.
  await wb.pickPath(join(wb.workspace, TORCH));
  await wb.page.locator('.tab.active', { hasText: TORCH }).waitFor({ timeout: 30_000 });
  const imported = importPytorch(readFileSync(repoPath('test', 'fixtures', 'torch', 'sync_seeds.json'), 'utf8'));
  const frame = await wb.webviewFrame('.row-header .row-title', 30_000, imported.lanes[0].name);
  const rows = await frame.locator('.row-header .row-title').allInnerTexts();
  for (const lane of imported.lanes.slice(0, 3))
    assert.ok(
      rows.some((r) => r.includes(lane.name)),
      `row for ${lane.name} in ${rows.join(' | ')}`,
    );
  assert.match(
    wb.extensionLog(),
    new RegExp(
      `opened ${TORCH.replace(/\./g, '\\.')} \\(pytorch\\): ${imported.calls.count} calls, ${imported.ops.count} ops`,
    ),
  );
  await painted(frame);
  await wb.shot('09-pytorch-trace');
});

// The packaged extension carries the capture library only where it was built (CUPTI present).
const noCapture =
  skip ||
  (!existsSync(repoPath('build', 'Release', 'libsyncscope_capture.so')) &&
    'the capture library was not built here (no CUPTI)');
test(
  'Capture a Program… runs the command line under the capture library and says when it never used CUDA',
  { skip: noCapture, timeout: 90_000 },
  async () => {
    await wb.command('Syncscope: Capture a Program…');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('echo syncscope-e2e');
    await wb.page.keyboard.press('Enter');
    // No GPU work, so nothing was captured: the extension shows the message the CLI gives too.
    const toast = wb.page.locator('.notification-list-item-message', { hasText: 'nothing was captured' });
    await toast.first().waitFor({ timeout: 60_000 });
    assert.equal(
      (await toast.first().innerText()).trim(),
      'Syncscope: nothing was captured: "/bin/sh -c echo syncscope-e2e" exited with code 0 without initialising CUDA',
    );
    const log = wb.extensionLog();
    assert.match(log, /capturing: echo syncscope-e2e/);
    assert.match(log, /\]\s+syncscope-e2e$/m, "the program's own output reaches the log");
    await wb.shot('10-capture-no-cuda');
  },
);
