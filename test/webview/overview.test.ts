// The overview tab in headless Chromium: the chart, the lines and the findings as the hand-written
// overview of test/webview/overview-sample.ts gives them, and each row's click: to its wait in the
// timeline, its line in the editor, the simulation of its fix. Screenshots at 500 and 1400 px,
// light and dark, go to test-results/overview/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { inPage, launch, nextFrame, openTimeline, resultsDir, skipReason, until } from './browser';
import { CONTEXT, FILE, loopOverview, loopTrace, manyIterations, SPANS } from './overview-sample';
import { sampleTrace } from './sample';

const UNIT_NS: Record<string, number> = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 };

/** Pixels per ns of the chart's time axis, read from its tick labels and their places. */
async function pxPerNs(page: Page): Promise<number> {
  const ticks = await page.locator('.ov-axis .tick').evaluateAll((els) =>
    els.map((e) => ({
      text: e.textContent ?? '',
      y: Number(/translate\(0,([^)]+)\)/.exec(e.getAttribute('transform') ?? '')?.[1]),
    })),
  );
  const zero = ticks.find((t) => t.text === '0');
  const top = ticks.at(-1);
  assert.ok(zero && top && top !== zero, `ticks ${JSON.stringify(ticks)}`);
  const [, value, unit] = /^([\d.]+) (\S+)$/.exec(top.text) ?? [];
  assert.ok(value && UNIT_NS[unit], `tick label ${top.text}`);
  return (zero.y - top.y) / (Number(value) * UNIT_NS[unit]);
}

/** Each bar's segments: their classes' part and height. */
const barSegments = (page: Page): Promise<{ part: string; h: number }[][]> =>
  page.locator('.ov-bar').evaluateAll((bars) =>
    bars.map((b) =>
      [...b.querySelectorAll('rect.ov-seg')].map((r) => ({
        part: (r as SVGElement).dataset.part ?? '',
        h: Number(r.getAttribute('height')),
      })),
    ),
  );

/** The last message the page posted, or the last of a type. */
const posted = (page: Page, type?: string) =>
  inPage<unknown>(
    page,
    `return window.syncscope.posted.filter((m) => ${JSON.stringify(type ?? '')} === '' || m.type === ${JSON.stringify(type ?? '')}).at(-1);`,
  );
const tabSelected = (page: Page, name: string) => page.locator(`#tab-${name}`).getAttribute('aria-selected');

describe('the overview tab in headless Chromium', { skip: skipReason() }, () => {
  let browser: Browser;
  const sample = loopTrace();
  const overview = loopOverview(sample);
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('opens first and draws the window, one stacked bar per step, the lines and the findings in their order', async () => {
    const { page, errors, dialogs } = await openTimeline(browser, sample.trace, 'overview-chart', { overview });
    assert.equal(await tabSelected(page, 'overview'), 'true');
    assert.equal(await tabSelected(page, 'timeline'), 'false');
    assert.equal(await page.locator('.main').isVisible(), false);
    // One sentence, which names the step left out: said once, not again in a list.
    assert.equal(await page.locator('.ov-sentence').textContent(), overview.window.text);
    assert.match(overview.window.text, /ProfilerStep#1 left out: warm-up, the first step the profiler recorded$/);
    assert.equal(await page.getByText('left out').count(), 1);

    // One bar per step; its parts stack to the step's span on the axis's own scale.
    const scale = await pxPerNs(page);
    const bars = await barSegments(page);
    assert.equal(bars.length, 5);
    bars.forEach((segs, k) => {
      assert.deepEqual(
        segs.map((s) => s.part),
        ['running', 'blocked:streamSync', 'blocked:eventSync', 'other'],
      );
      const sum = segs.reduce((a, s) => a + s.h, 0);
      assert.ok(Math.abs(sum - SPANS[k] * scale) <= 1, `step ${k}: parts ${sum} px, span ${SPANS[k] * scale} px`);
    });
    // Step 4 (4.2 ms) stands tallest, step 3 (3.98 ms) lowest.
    const heights = bars.map((segs) => segs.reduce((a, s) => a + s.h, 0));
    assert.equal(heights.indexOf(Math.max(...heights)), 3);
    assert.equal(heights.indexOf(Math.min(...heights)), 2);
    // GPU rows: stream 13 was busy 940 µs of step 1's 4.05 ms, 18 px tall when busy all along.
    const busy13 = await page
      .locator('.ov-bar')
      .first()
      .locator('rect.ov-gpu[data-stream="stream 13"]')
      .getAttribute('height');
    assert.ok(Math.abs(Number(busy13) - (18 * 940) / 4050) < 0.01, `stream 13 busy ${busy13} px`);
    assert.deepEqual(await page.locator('.ov-legend li').allTextContents(), [
      'Host running in calls',
      'Host blocked in streamSync',
      'Host blocked in eventSync',
      'Host, other work',
      'GPU stream busy',
      'GPU stream idle',
    ]);
    assert.deepEqual(await page.locator('.ov-tick').allTextContents(), [
      'ProfilerStep#2',
      'ProfilerStep#3',
      'ProfilerStep#4',
      'ProfilerStep#5',
      'ProfilerStep#6',
    ]);
    // At 1400 px each label fits whole under its bar.
    assert.equal(await page.locator('.ov-iterations .ov-caption').count(), 0);

    // The lines as ranked, with their figures per step and who released them.
    const lines = page.locator('.ov-line');
    assert.deepEqual(await lines.locator('.ov-where').allTextContents(), [
      '…/project/train.py:25 in step()',
      '…/project/train.py:31 in step()',
      CONTEXT,
    ]);
    assert.deepEqual(await lines.locator('.ov-main').allTextContents(), [
      '1.52 ms / iteration',
      '900 µs / iteration',
      '7 µs / iteration',
    ]);
    assert.deepEqual(await lines.locator('.ov-pct').allTextContents(), ['63%', '37%', '1%']);
    assert.deepEqual(await lines.locator('.ov-released').allTextContents(), [
      'released by cunn_SoftMaxForward on stream 7, launched at …/project/train.py:22 in step() exact',
      'released by Memcpy HtoD (Pageable -> Device) on stream 13, launched at …/project/train.py:29 in load_batch() deduced',
      'unknown (the trace does not say)',
    ]);
    // The findings as ranked: savings, then the race fix's cost, then the one with no prediction.
    const findings = page.locator('.ov-finding');
    assert.deepEqual(await findings.locator('.ov-id').allTextContents(), ['F2', 'F1', 'F3', 'F4']);
    assert.deepEqual(await findings.locator('.ov-figure').allTextContents(), [
      'saves 1.23 ms / iteration6.15 ms in the window',
      'saves 82 µs / iteration410 µs in the window',
      'costs 30 µs / iteration150 µs in the window; the fix adds a wait',
      'No prediction: no fix to simulate',
    ]);
    // The standalone page has no editor and simulates nothing: file:line is text, no fix button.
    assert.equal(await page.locator('.overview a').count(), 0);
    assert.equal(await page.locator('.overview .simulate-fix').count(), 0);
    // Trace strings are text.
    assert.equal(await page.locator('img').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a line or finding leads in one click to its wait, selected in the laid-out timeline; the tabs keep its state', async () => {
    const { page, errors } = await openTimeline(browser, sample.trace, 'overview-clicks', { overview });
    const longest = sample.streamSyncs[4];
    await page.locator('.ov-line').first().locator('.ov-rank').click();
    assert.equal(await tabSelected(page, 'timeline'), 'true');
    assert.equal(await page.locator('.overview-panel').isVisible(), false);
    assert.equal(await inPage(page, 'return canvas.dataset.selected;'), `calls:${longest}`);
    assert.deepEqual(await posted(page, 'selected'), { type: 'selected', call: longest });
    // Laid out although it was hidden until now: the canvas fills its box and shows the wait.
    await nextFrame(page);
    const fit = await inPage<{ canvas: number; plot: number; range: [number, number] }>(
      page,
      `return { canvas: canvas.clientWidth, plot: canvas.parentElement.clientWidth, range: view.visibleRange() };`,
    );
    assert.ok(fit.plot > 500 && fit.canvas === fit.plot, JSON.stringify(fit));
    const [b, e] = [sample.trace.calls.begin[longest], sample.trace.calls.end[longest]];
    assert.ok(fit.range[0] <= b && e <= fit.range[1] && fit.range[1] - fit.range[0] < 4 * (e - b), JSON.stringify(fit));
    const dir = join(resultsDir(), 'overview');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'timeline-after-click.png') });

    // Arrow keys move between the tabs; the timeline comes back as it was.
    await page.locator('#tab-timeline').focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await tabSelected(page, 'overview'), 'true');
    assert.equal(await page.evaluate('document.activeElement.id'), 'tab-overview');
    await page.keyboard.press('w'); // a timeline key does nothing while the overview is in front
    await page.keyboard.press('End');
    assert.equal(await tabSelected(page, 'timeline'), 'true');
    assert.deepEqual(await inPage(page, 'return view.visibleRange();'), fit.range);
    assert.equal(await inPage(page, 'return canvas.dataset.selected;'), `calls:${longest}`);

    // A finding's button selects its first call.
    await page.keyboard.press('Home');
    await page.locator('.ov-finding').nth(1).locator('button.ov-show').click();
    assert.equal(await inPage(page, 'return canvas.dataset.selected;'), `calls:${sample.eventSyncs[0]}`);
    // A bar shows its step in the timeline.
    await page.keyboard.press('Home');
    await page.locator('#tab-overview').click();
    await page.locator('.ov-bar').nth(2).click();
    assert.equal(await tabSelected(page, 'timeline'), 'true');
    const step = await inPage<[number, number]>(page, 'return view.visibleRange();');
    const [s0, s1] = [sample.stepBegins[2], sample.stepBegins[2] + SPANS[2]];
    assert.ok(Math.abs(step[0] - s0) < 1000 && Math.abs(step[1] - s1) < 1000, `${step} for ${s0}..${s1}`);
    // The tab in front is kept with the page's state.
    assert.equal(await inPage(page, 'return app.host.getState().tab;'), 'timeline');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('where the host offers an editor and fix simulation, rows open the line and simulate the fix', async () => {
    const { page, errors } = await openTimeline(browser, sample.trace, 'overview-offers', { overview });
    await page.evaluate(
      `window.postMessage({ type: 'trace', trace: window.syncscope.app.trace, title: 'offers', offers: ['simulateFix', 'openSource'], overview: ${JSON.stringify(overview)} }, '*')`,
    );
    await until(page, "document.querySelectorAll('.overview a.source-link').length > 0");
    mkdirSync(join(resultsDir(), 'overview'), { recursive: true });
    await page.screenshot({ path: join(resultsDir(), 'overview', 'overview-offers.png') });
    await page.locator('.ov-line').first().locator('a.source-link').first().click();
    assert.deepEqual(await posted(page), { type: 'openSource', file: FILE, line: 25 });
    await page.locator('.ov-line').first().locator('.ov-launch a.source-link').click();
    assert.deepEqual(await posted(page), { type: 'openSource', file: FILE, line: 22 });
    assert.equal(await tabSelected(page, 'overview'), 'true', 'a link does not leave the overview');
    // Fixes the simulator has an edit for: F2 loop-sync, F1 redundant-wait, F3 race; not F4.
    const buttons = await page
      .locator('.ov-finding')
      .evaluateAll((rows) => rows.map((r) => !!r.querySelector('.simulate-fix')));
    assert.deepEqual(buttons, [true, true, true, false]);
    await page.locator('.ov-finding').first().locator('.simulate-fix').click();
    assert.deepEqual(await posted(page), { type: 'simulateFix', finding: 1 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("fixes simulated over part of the window: a second sentence says which, under the window's", async () => {
    const part =
      "Fixes simulated over the first 3 of its 5 steps, ProfilerStep#2 to ProfilerStep#4: 20 simulations of the window's 9,000 host calls exceed the budget.";
    const dir = join(resultsDir(), 'overview');
    mkdirSync(dir, { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors } = await openTimeline(browser, sample.trace, `overview-part-${theme}`, {
        overview: { ...overview, simulatedPart: part },
        theme,
        width: 1000,
      });
      assert.deepEqual(await page.locator('.ov-window .ov-sentence').allTextContents(), [overview.window.text, part]);
      await page.screenshot({ path: join(dir, `overview-part-${theme}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('a page without an overview shows the timeline alone, as before; one sent later brings its tab', async () => {
    const { page, errors } = await openTimeline(browser, sampleTrace(), 'overview-none', { width: 1000 });
    assert.equal(await page.locator('.tabs').isVisible(), false);
    assert.equal(await page.locator('.main').isVisible(), true);
    assert.equal(await page.locator('.overview-panel').isVisible(), false);
    assert.ok((await inPage<number>(page, 'return canvas.clientWidth;')) > 500);
    // The overview of another trace is enough to draw the tab: what it says is not checked here.
    await page.evaluate(`window.postMessage({ type: 'overview', overview: ${JSON.stringify(overview)} }, '*')`);
    await until(page, "document.querySelector('#tab-overview')?.getAttribute('aria-selected') === 'true'");
    assert.equal(await page.locator('.ov-bar').count(), 5);

    // After the user has worked in the timeline, a late overview waits behind its tab.
    const again = await openTimeline(browser, sampleTrace(), 'overview-late', { width: 1000 });
    await again.page.locator('canvas.plot-canvas').click({ position: { x: 5, y: 5 } });
    await again.page.evaluate(`window.postMessage({ type: 'overview', overview: ${JSON.stringify(overview)} }, '*')`);
    await until(again.page, "!document.querySelector('.tabs').hidden");
    assert.equal(await tabSelected(again.page, 'timeline'), 'true');

    // A reload: the trace comes again with the page's saved state (the timeline in front), its
    // overview later. The saved tab stays in front.
    await page.locator('#tab-timeline').click();
    assert.equal(await inPage(page, 'return app.host.getState().tab;'), 'timeline');
    await inPage(page, "app.receive({ type: 'trace', trace, title: 'overview-none' });");
    await page.evaluate(`window.postMessage({ type: 'overview', overview: ${JSON.stringify(overview)} }, '*')`);
    await until(page, "!document.querySelector('.tabs').hidden && !!document.querySelector('.ov-bar')");
    assert.equal(await tabSelected(page, 'timeline'), 'true');
    assert.deepEqual([...errors, ...again.errors], []);
    await page.close();
    await again.page.close();
  });

  test('60 steps stay one thin bar each, labels apart; 2000 are drawn as means of runs', async () => {
    const { page, errors } = await openTimeline(browser, sample.trace, 'overview-60', {
      overview: manyIterations(60, sample),
      width: 500,
    });
    assert.equal(await page.locator('.ov-bar').count(), 60);
    const dir = join(resultsDir(), 'overview');
    mkdirSync(dir, { recursive: true });
    await page.locator('.ov-iterations').screenshot({ path: join(dir, 'chart-60-steps-500.png') });
    assert.equal(
      await page.locator('.ov-iterations .ov-caption').textContent(),
      'Under each bar: its iteration, ProfilerStep#<number>.',
    );
    const width = Number(await page.locator('rect.ov-seg').first().getAttribute('width'));
    assert.ok(width >= 2, `bars ${width} px wide`);
    const boxes = await page.locator('.ov-tick').evaluateAll((ts) =>
      ts.map((t) => {
        const b = (t as SVGGraphicsElement).getBBox();
        return { x: b.x, width: b.width };
      }),
    );
    for (let i = 1; i < boxes.length; i++)
      assert.ok(
        boxes[i].x > boxes[i - 1].x + boxes[i - 1].width,
        `tick ${i} overlaps the one before: ${JSON.stringify(boxes.slice(0, 4))}`,
      );
    await page.close();

    const many = await openTimeline(browser, sample.trace, 'overview-2000', {
      overview: manyIterations(2000, sample),
      width: 500,
    });
    const count = await many.page.locator('.ov-bar').count();
    await many.page.locator('.ov-iterations').screenshot({ path: join(dir, 'chart-2000-steps-500.png') });
    assert.ok(count < 200 && count >= 100, `${count} bars`);
    assert.match(
      (await many.page.locator('.ov-iterations .ov-caption').textContent()) ?? '',
      /^Each bar is the mean of \d+ consecutive iterations \(2000 in all\), labelled by its first, ProfilerStep#<number>\.$/,
    );
    assert.deepEqual([...errors, ...many.errors], []);
    await many.page.close();
  });

  test('screenshots at 500 and 1400 px, light and dark, and in high contrast', async () => {
    const dir = join(resultsDir(), 'overview');
    mkdirSync(dir, { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [500, 1400]) {
        const { page, errors } = await openTimeline(browser, sample.trace, `overview-${width}-${theme}`, {
          overview,
          theme,
          width,
          height: width === 500 ? 1900 : 1200,
        });
        await page.locator('.ov-iterations').screenshot({ path: join(dir, `chart-${width}-${theme}.png`) });
        await page.locator('.ov-bar').nth(1).hover();
        await page.screenshot({ path: join(dir, `overview-${width}-${theme}.png`) });
        assert.deepEqual(errors, []);
        await page.close();
      }
    }
    // High contrast, with VS Code's high-contrast colours for the variables the page reads.
    const { page, errors } = await openTimeline(browser, sample.trace, 'overview-hc', { overview, height: 1200 });
    await page.evaluate(`(() => {
      const b = document.body;
      b.classList.remove('theme-light');
      b.classList.add('vscode-high-contrast');
      const vars = ${JSON.stringify(HIGH_CONTRAST)};
      for (const [k, v] of Object.entries(vars)) b.style.setProperty(k, v);
    })()`);
    await nextFrame(page);
    await page.screenshot({ path: join(dir, 'overview-1400-high-contrast.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** VS Code's Dark High Contrast theme, for the variables the page reads. */
const HIGH_CONTRAST = {
  '--vscode-font-family': 'system-ui, sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-editor-background': '#000000',
  '--vscode-editor-foreground': '#ffffff',
  '--vscode-sideBar-background': '#000000',
  '--vscode-descriptionForeground': '#ffffff',
  '--vscode-contrastBorder': '#6fc3df',
  '--vscode-panel-border': '#6fc3df',
  '--vscode-focusBorder': '#f38518',
  '--vscode-editorWidget-background': '#0c141f',
  '--vscode-editorWidget-border': '#6fc3df',
  '--vscode-editorIndentGuide-background1': '#ffffff',
  '--vscode-button-background': '#000000',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-secondaryBackground': '#000000',
  '--vscode-button-secondaryForeground': '#ffffff',
  '--vscode-textLink-foreground': '#21a6ff',
  '--vscode-list-hoverBackground': '#000000',
  '--vscode-panelTitle-activeBorder': '#6fc3df',
  '--vscode-charts-blue': '#3794ff',
  '--vscode-charts-green': '#89d185',
  '--vscode-charts-purple': '#b180d7',
  '--vscode-charts-orange': '#d18616',
  '--vscode-charts-yellow': '#ffd700',
  '--vscode-charts-red': '#f48771',
  '--vscode-charts-lines': '#ffffff',
  '--vscode-errorForeground': '#f48771',
  '--vscode-editorWarning-foreground': '#ffd700',
  '--vscode-editorInfo-foreground': '#3794ff',
};
