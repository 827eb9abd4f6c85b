// The timeline's findings list in headless Chromium: by severity until the host sends the trace's
// overview, then by the savings it predicts (core/overview/rank.ts), each finding keeping its id.
// The profile of test/gpu/torch/programs/train_step.py: `syncscope whatif` over its recorded window
// predicts F4 16 ms and F3 1.45 ms, and nothing for F1 and F2 (test/core/overview.test.ts). A
// screenshot goes to test-results/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { buildOverview } from '../../core/overview/build';
import { h200 } from '../../core/simulate';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';
import { launch, nextFrame, openTimeline, resultsDir, skipReason } from './browser';

describe('findings list ranked by predicted saving', { skip: skipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the list follows the overview once it comes, with each saving', async () => {
    const trace = await loadTraceFile(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz'));
    const analysis = analyze(trace);
    trace.findings = analysis.findings;
    const overview = buildOverview(trace, analysis, h200);
    const { page, errors } = await openTimeline(browser, trace, 'findings-rank');
    const ids = () => page.locator('li.finding .id').allTextContents();
    // All four are warnings: before the overview, the analysis order.
    assert.deepEqual(await ids(), ['F1', 'F2', 'F3', 'F4']);
    await page.evaluate(`window.postMessage({ type: 'overview', overview: ${JSON.stringify(overview)} }, '*')`);
    await nextFrame(page);
    // The batch's copies, the .item(); then the model's copies before the window, with no saving.
    assert.deepEqual(await ids(), ['F4', 'F3', 'F1', 'F2']);
    assert.deepEqual(await page.locator('li.finding .saving').allTextContents(), [
      'predicted saving 16 ms (1.8 ms per iteration)',
      'predicted saving 1.45 ms (181 µs per iteration)',
      'no prediction: cannot apply: its copies are not in the scenario (its calls are outside the window)',
      'no prediction: cannot apply: its copies are not in the scenario (its calls are outside the window)',
    ]);
    await page.screenshot({ path: join(resultsDir(), 'findings-rank.png') });
    assert.deepEqual(errors, []);
  });
});
