// The timeline beside a scenario in a real VS Code (code-server) at the size of a laptop window:
// the canvas keeps most of the panel's width, and a wait picked in the waits table is the one the
// timeline selects and the details describe. Screenshots go to test-results/e2e/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCENARIO = 'seed-side-stream-event-sync.scenario.json';
const text = readFileSync(repoPath('examples', SCENARIO), 'utf8');

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({ [SCENARIO]: text });
    await wb.page.setViewportSize({ width: 1400, height: 900 });
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

const painted = (frame: Frame): Promise<void> =>
  frame.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())))');

test(
  'beside the scenario the canvas keeps 60% of the panel, and a wait picked in the table is selected everywhere',
  { skip, timeout: 180_000 },
  async () => {
    await wb.openFile(SCENARIO);
    await wb.commandOnceListed('Syncscope: Simulate Scenario');
    await wb.page.locator('.tab', { hasText: `Simulated: ${SCENARIO}` }).waitFor({ timeout: 30_000 });
    const frame = await wb.webviewFrame('h1.title', 30_000, SCENARIO);
    await frame.locator('canvas.plot-canvas').waitFor({ timeout: 30_000 });
    await frame.locator('.waits-row.wait').first().waitFor({ timeout: 30_000 });
    await painted(frame);
    const { panel, canvas } = (await frame.evaluate(`({ panel: document.documentElement.clientWidth,
    canvas: document.querySelector('canvas.plot-canvas').getBoundingClientRect().width })`)) as {
      panel: number;
      canvas: number;
    };
    console.log(`# panel ${panel} px, canvas ${canvas} px`);
    assert.ok(panel > 300, `the panel is laid out: ${panel} px`);
    assert.ok(canvas / panel >= 0.6, `canvas ${canvas} of ${panel} px`);
    await wb.shot('layout-01-beside-scenario');

    // The event wait, as core explains it.
    const program = compileScenario(text, SCENARIO);
    const trace = simulate(program);
    const wait = analyze(trace, { program }).waits.find((w) => w.kind === 'eventSync');
    assert.ok(wait && wait.releasedBy?.length, 'the example has an explained event wait');
    const row = frame.locator(`.waits-row.wait[data-call="${wait.id}"]`);
    await row.scrollIntoViewIfNeeded();
    await row.click();
    await frame.locator(`.waits-row[data-call="${wait.id}"][aria-selected="true"]`).waitFor({ timeout: 10_000 });
    assert.equal(
      await frame.locator('canvas.plot-canvas').getAttribute('data-selected'),
      `calls:${wait.id}`,
      'the timeline selects the wait',
    );
    const title = await frame.locator('.details .details-title').innerText();
    assert.equal(title, 'cudaEventSynchronize');
    const released = await frame
      .locator('.details dt', { hasText: 'Released by' })
      .locator('xpath=following-sibling::dd[1]')
      .innerText();
    assert.ok(released.startsWith(wait.releasedBy![0].name), `"${released}" names ${wait.releasedBy![0].name}`);
    const reveal = await frame.locator('.details button.reveal').innerText();
    assert.match(reveal, new RegExp(`line ${wait.source!.line}\\)`));
    await painted(frame);
    await wb.shot('layout-02-wait-from-table');
  },
);
