import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { Trace, TraceBuilder } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { inPage, launch, nextFrame, openTimeline, resultsDir, skipReason, until } from './browser';

const EXAMPLE = 'seed-side-stream-event-sync.scenario.json';
function exampleTrace(): Trace {
  const program = compileScenario(readFileSync(repoPath('examples', EXAMPLE), 'utf8'), EXAMPLE);
  const trace = simulate(program);
  trace.findings = analyze(trace, { program }).findings;
  return trace;
}

/** The canvas's width as a share of the page's. */
const canvasShare = (page: Page): Promise<number> =>
  inPage(page, 'return canvas.getBoundingClientRect().width / document.documentElement.clientWidth;');

/** `read()` once `ok` holds of it, or its last value after 5 s. */
async function settled<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    value = await read();
  }
  return value;
}

const WIDTHS = [500, 700, 1000, 1400, 1800];

describe('layout and the waits table in headless Chromium', { skip: skipReason() }, () => {
  let browser: Browser;
  const trace = exampleTrace();
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('at 500, 700, 1000 and 1400 px the canvas gets at least 60% of the width, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      for (const width of WIDTHS) {
        const { page, errors } = await openTimeline(browser, trace, `layout-${width}-${theme}`, {
          theme,
          width,
          height: 800,
        });
        const share = await canvasShare(page);
        assert.ok(share >= 0.6, `${theme} ${width} px: canvas share ${share.toFixed(3)}`);
        const mode = await inPage<string>(page, "return document.querySelector('.main').className;");
        assert.match(mode, width >= 1600 ? /layout-side/ : /layout-bottom/);
        await page.screenshot({ path: join(resultsDir(), `layout-${width}-${theme}.png`) });
        assert.deepEqual(errors, []);
        await page.close();
      }
    }
  });

  test("the waits table sorts and groups the example's waits, with the numbers read from its trace", async () => {
    const { page, errors } = await openTimeline(browser, trace, 'waits-table', { width: 1000, height: 800 });
    // Largest blocked time first: calls 5, 4, 0 and 1 blocked 10503, 8950, 3205 and 2705 ns.
    assert.deepEqual(await cells(page), [
      ['memcpy(default)', '10.5 µs', 'DtoH sum -> out_cpu', 'exact', '0 ns', 'line 37'],
      ['eventSync(event)', '8.95 µs', 'add', 'exact', '3.6 µs', 'line 35'],
      ['memcpy(default)', '3.21 µs', 'HtoD t1_cpu -> t1', 'exact', '0 ns', 'line 27'],
      ['memcpy(default)', '2.71 µs', 'HtoD t2_cpu -> t2', 'exact', '0 ns', 'line 29'],
    ]);
    await page.locator('.waits-sort[data-key="blocked"]').click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[1]),
      ['2.71 µs', '3.21 µs', '8.95 µs', '10.5 µs'],
    );
    await page.locator('.waits-sort[data-key="wait"]').click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[0]),
      ['eventSync(event)', 'memcpy(default)', 'memcpy(default)', 'memcpy(default)'],
    );
    await page.locator('.waits-sort[data-key="unblock"]').click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[4]),
      ['3.6 µs', '0 ns', '0 ns', '0 ns'],
    );

    // By call kind: memcpy 3 waits, 3205 + 2705 + 10503 = 16413 ns, p50 3205, p95 10503; eventSync one of 8950.
    await page.selectOption('select.waits-grouping', 'kind');
    assert.deepEqual(await cells(page), [
      ['▸ memcpy', '3', '16.4 µs', '3.21 µs', '10.5 µs'],
      ['▸ eventSync', '1', '8.95 µs', '8.95 µs', '8.95 µs'],
    ]);
    await page.locator('.waits-sort[data-key="count"]').click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[0]),
      ['▸ memcpy', '▸ eventSync'],
    );
    await page.locator('.waits-sort[data-key="count"]').click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[0]),
      ['▸ eventSync', '▸ memcpy'],
    );
    // A group opens to its waits, in the waits' own order (by unblock latency, all 0 ns: call order).
    await page.locator('.waits-row.group', { hasText: 'memcpy' }).click();
    assert.deepEqual(
      (await cells(page)).map((r) => r[0] + ' ' + r[1]),
      ['▸ eventSync 1', '▾ memcpy 3', 'memcpy(default) 3.21 µs', 'memcpy(default) 2.71 µs', 'memcpy(default) 10.5 µs'],
    );

    await page.selectOption('select.waits-grouping', 'source');
    assert.deepEqual(
      (await cells(page)).map((r) => [r[0], r[1], r[2]]),
      [
        ['▸ line 37', '1', '10.5 µs'],
        ['▸ line 35', '1', '8.95 µs'],
        ['▸ line 27', '1', '3.21 µs'],
        ['▸ line 29', '1', '2.71 µs'],
      ],
    );
    await page.selectOption('select.waits-grouping', 'context');
    assert.deepEqual(
      (await cells(page)).map((r) => [r[0], r[1], r[2]]),
      [['▸ (no context)', '4', '25.4 µs']],
    );
    await page.screenshot({ path: join(resultsDir(), 'waits-grouped.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('clicking a row selects its wait on the timeline, and the details agree; a canvas click marks the row', async () => {
    const { page, errors } = await openTimeline(browser, trace, 'waits-select', { width: 700, height: 800 });
    await page.locator('.waits-row.wait', { hasText: 'eventSync(event)' }).click();
    assert.deepEqual(await inPage(page, 'return view.selection;'), { table: 'calls', id: 4 });
    assert.equal(await page.locator('canvas.plot-canvas').getAttribute('data-selected'), 'calls:4');
    assert.deepEqual(await inPage(page, 'return window.syncscope.posted.at(-1);'), { type: 'selected', call: 4 });
    assert.equal(await page.locator('.details-title').textContent(), 'cudaEventSynchronize');
    const fields = await fieldMap(page);
    assert.equal(fields['Blocked'], '8.95 µs');
    assert.equal(fields['Released by'], 'add · stream');
    assert.equal(fields['Unblock latency'], '3.6 µs');
    assert.deepEqual(await page.locator('.waits-row[aria-selected="true"]').getAttribute('data-call'), '4');
    const [a, b] = await inPage<[number, number]>(page, 'return view.visibleRange();');
    assert.ok(a <= 11160 && b >= 20110, `the wait is in view: ${a}..${b}`);
    // The other way: a click on the canvas selects the wait and its row.
    const p = await inPage<{ x: number; y: number }>(
      page,
      `const tr = view.trackOf({ table: 'calls', id: 0 }); const r = canvas.getBoundingClientRect();
      view.setViewport(0, 31000); return { x: r.left + view.x(1600), y: r.top + tr.y - document.querySelector('.scroller').scrollTop + tr.h / 2 };`,
    );
    await nextFrame(page);
    await page.mouse.click(p.x, p.y);
    assert.deepEqual(await inPage(page, 'return view.selection;'), { table: 'calls', id: 0 });
    assert.deepEqual(await page.locator('.waits-row[aria-selected="true"]').getAttribute('data-call'), '0');
    await page.screenshot({ path: join(resultsDir(), 'waits-selected-700.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('with 10^5 waits only the rows in view are in the DOM, and sorting stays quick', async () => {
    const many = manyWaits(100_000);
    const { page, errors } = await openTimeline(browser, many, 'waits-many', { width: 1000, height: 800 });
    assert.equal(await page.locator('.waits-panel .count').textContent(), '100000');
    const rows = () => page.locator('.waits-row').count();
    assert.ok((await rows()) < 60, `rows in the DOM: ${await rows()}`);
    const started = Date.now();
    await page.locator('.waits-sort[data-key="blocked"]').click();
    assert.ok(Date.now() - started < 2000, `sorted in ${Date.now() - started} ms`);
    // Ascending blocked time: call i blocked i + 1 ns, so the last row is the last call.
    await page.evaluate(
      `(() => { const v = document.querySelector('.waits-viewport'); v.scrollTop = v.scrollHeight; })()`,
    );
    await until(page, `[...document.querySelectorAll('.waits-row')].some((r) => r.dataset.call === '99999')`);
    assert.ok((await rows()) < 60);
    await page.locator('.waits-row[data-call="99999"]').click();
    assert.deepEqual(await inPage(page, 'return view.selection;'), { table: 'calls', id: 99999 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the drawer split, folded lane labels and the legend are remembered; the legend starts folded after first use', async () => {
    const { page, errors } = await openTimeline(browser, trace, 'layout-persist', { width: 1000, height: 800 });
    assert.equal(await page.locator('details.legend-panel').getAttribute('open'), '', 'open the first time');
    const drawerH = () => inPage<number>(page, "return document.querySelector('.drawer').offsetHeight;");
    const h0 = await drawerH();
    const bar = await page.locator('.splitter').boundingBox();
    assert.ok(bar);
    await page.mouse.move(bar.x + 200, bar.y + 2);
    await page.mouse.down();
    await page.mouse.move(bar.x + 200, bar.y - 98, { steps: 4 });
    await page.mouse.up();
    assert.equal(await drawerH(), h0 + 100);
    const share0 = await canvasShare(page);
    await page.locator('.labels-toggle').click();
    // The canvas takes the width when its resize observer runs, a frame after the click.
    const grown = await settled(
      () => canvasShare(page),
      (share) => share > share0 + 0.1,
    );
    assert.ok(grown > share0 + 0.1, `folded labels give their width to the canvas: ${share0} -> ${grown}`);
    await page.reload();
    await until(page, '!!(window.syncscope && window.syncscope.app.view)');
    await nextFrame(page);
    assert.equal(await drawerH(), h0 + 100);
    assert.equal(await page.locator('.headers.labels-collapsed').count(), 1);
    assert.equal(await page.locator('details.legend-panel').getAttribute('open'), null, 'folded after first use');
    await page.locator('details.legend-panel > summary').click();
    await page.reload();
    await until(page, '!!(window.syncscope && window.syncscope.app.view)');
    assert.equal(await page.locator('details.legend-panel').getAttribute('open'), '', 'opened by hand, it stays open');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** The table's rows as cell texts, top to bottom. */
async function cells(page: Page): Promise<string[][]> {
  return page.evaluate(`[...document.querySelectorAll('.waits-row')].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
    .map((r) => [...r.querySelectorAll('.cell')].map((c) => c.textContent))`) as Promise<string[][]>;
}

async function fieldMap(page: Page): Promise<Record<string, string>> {
  const keys = await page.locator('.details dl.fields dt').allTextContents();
  const values = await page.locator('.details dl.fields dd').allTextContents();
  return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
}

/** A host thread that synchronizes a stream `n` times, call i blocked i + 1 ns. */
function manyWaits(n: number): Trace {
  const b = new TraceBuilder();
  const main = b.lane({ kind: 'thread', name: 'main', device: 0 });
  const s = b.lane({ kind: 'stream', name: 's', device: 0 });
  for (let i = 0; i < n; i++)
    b.call({
      lane: main,
      kind: 'streamSync',
      name: 'cudaStreamSynchronize',
      begin: i * 1000,
      end: i * 1000 + 500,
      stream: s,
      blockedNs: i + 1,
    });
  return b.finish({ source: 'simulator', clock: 'simulated', alignmentErrorNs: 0 });
}
