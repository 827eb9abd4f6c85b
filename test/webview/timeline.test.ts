import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import {
  inPage,
  launch,
  nextFrame,
  Opened,
  openTimeline,
  pixelAt,
  pointOf,
  resultsDir,
  skipReason,
  until,
} from './browser';
import { SAMPLE, sampleTrace } from './sample';
import { wireTrace } from '../../node/wire-trace';

const trace = sampleTrace();
const t = trace;

describe('timeline in headless Chromium', { skip: skipReason() }, () => {
  let browser: Browser;
  // One page serves the interaction tests; each starts from a cleared selection and the whole trace.
  let shared: Opened;
  const fresh = async () => {
    shared ??= await openTimeline(browser, trace, 'interactions');
    await shared.page.fill('input.search', '');
    await shared.page.evaluate('document.activeElement && document.activeElement.blur()');
    await inPage(shared.page, 'view.ruler = null; app.select(null, false, false); view.fit();');
    return shared;
  };
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    assert.deepEqual(shared?.errors ?? [], [], 'no console errors on the shared page');
    await browser?.close();
  });

  test('renders rows with stream flags, kernels, hatched blocked time and legible labels, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      // The dark page runs at devicePixelRatio 2: probes read device pixels, so both scales are checked.
      const { page, errors } = await openTimeline(browser, trace, `sample-${theme}`, {
        theme,
        scale: theme === 'dark' ? 2 : 1,
      });
      if (theme === 'dark') assert.equal(await inPage(page, 'return canvas.width / canvas.clientWidth;'), 2);
      const headers = [];
      for (const h of await page.locator('.row-header').all())
        headers.push((await h.locator('span').allTextContents()).join(' | '));
      assert.deepEqual(headers, ['main', 'default | legacy default', 'side | non-blocking | priority -1']);
      assert.deepEqual(await page.locator('.group-header').allTextContents(), ['▾Host threads', '▾GPU 0']);
      // One GPU: no cross-device arrow can appear, so the legend does not name one.
      assert.equal(await page.locator('.legend li', { hasText: 'Between two GPUs' }).count(), 0);
      assert.equal(await page.locator('.legend li', { hasText: 'Event (record → wait)' }).count(), 1);

      // The kernel "produce" is drawn in the kernel colour in the middle of its span.
      const mid = await pointOf(page, 'ops', SAMPLE.produce, 100000);
      const kernelPx = await pixelAt(page, mid.x, mid.y + 5);
      const kernelColor = await inPage<string>(page, 'return view.palette.kernel;');
      assert.equal(rgbHex(kernelPx), kernelColor.toLowerCase(), `${theme}: kernel pixel`);

      // Blocked time of the event wait is hatched: along one row the stripes alternate.
      const w = await pointOf(page, 'calls', SAMPLE.sync, 150000);
      const row: string[] = [];
      for (let dx = 0; dx < 12; dx++) row.push(rgbHex(await pixelAt(page, w.x + dx, w.y)));
      assert.ok(new Set(row).size >= 2, `${theme}: hatching shows distinct stripes, got ${row.join(' ')}`);

      // Nothing drawn where the timeline is empty (left of everything, in the stream row).
      const empty = await pointOf(page, 'ops', SAMPLE.produce, -2000);
      const bg = await inPage<string>(page, 'return view.palette.background;');
      assert.equal(rgbHex(await pixelAt(page, empty.x, empty.y)), bg.toLowerCase());

      await page.screenshot({ path: join(resultsDir(), `timeline-${theme}.png`) });
      // Zoomed on the unblock of the event wait: release arrow, marker and the latency label.
      await inPage(
        page,
        `view.setViewport(${t.ops.end[SAMPLE.produce] - 12000}, ${t.calls.end[SAMPLE.sync] + 12000}); view.draw();`,
      );
      await page.screenshot({ path: join(resultsDir(), `timeline-${theme}-unblock.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('S16 clicking a wait shows the op that released it, its blocked time and unblock latency', async () => {
    const { page } = await fresh();
    const p = await pointOf(page, 'calls', SAMPLE.sync, 120000);
    await page.mouse.click(p.x, p.y);
    const details = page.locator('.details');
    assert.equal(await details.locator('.details-title').textContent(), 'cudaEventSynchronize');
    const fields = await fieldMap(page);
    assert.equal(fields['Released by'], 'produce · side');
    assert.equal(fields['Waited for'], 'ready');
    assert.equal(fields['Blocked'], '139 µs');
    assert.equal(fields['Unblock latency'], '3.6 µs');
    assert.match(fields['Rules'], /S12.*S16/);
    assert.deepEqual(await inPage(page, 'return window.syncscope.posted.at(-1);'), {
      type: 'selected',
      call: SAMPLE.sync,
    });
    // The releasing op is a link that selects it.
    await details.locator('a.item-link', { hasText: 'produce · side' }).first().click();
    assert.equal(await details.locator('.details-title').textContent(), 'produce');
    assert.equal((await fieldMap(page))['Stream'], 'side');
    // Its cone: the launch that issued it happens before, the consuming kernel after.
    const marks = await inPage<number[]>(
      page,
      `const c = view.cone; return [c.calls[${SAMPLE.launchP}], c.ops[${SAMPLE.consume}], c.ops[${SAMPLE.produce}]];`,
    );
    assert.deepEqual(marks, [1, 2, 3]);
    await page.screenshot({ path: join(resultsDir(), 'timeline-selected-cone.png') });
  });

  test('keyboard W/S zoom and A/D pan change the visible range', async () => {
    const { page } = await fresh();
    const range = () => inPage<[number, number]>(page, 'return view.visibleRange();');
    const r0 = await range();
    await page.locator('canvas.plot-canvas').hover();
    await page.keyboard.press('w');
    await page.keyboard.press('w');
    const r1 = await range();
    assert.ok(r1[1] - r1[0] < (r0[1] - r0[0]) * 0.65, `zoomed in: ${r0} -> ${r1}`);
    await page.keyboard.press('d');
    const r2 = await range();
    assert.ok(r2[0] > r1[0] && Math.abs(r2[1] - r2[0] - (r1[1] - r1[0])) < 1, `panned right: ${r1} -> ${r2}`);
    await page.keyboard.press('s');
    const r3 = await range();
    assert.ok(r3[1] - r3[0] > r2[1] - r2[0], 'zoomed out');
    await page.keyboard.press('f');
    const r4 = await range();
    assert.ok(Math.abs(r4[0] - r0[0]) < 1 && Math.abs(r4[1] - r0[1]) < 1, 'fit shows everything again');
    // A scripted view beyond the trace is held inside it, like a gesture.
    const r5 = await inPage<[number, number]>(page, 'view.setViewport(-5e6, -4e6); return view.visibleRange();');
    assert.ok(Math.abs(r5[0] - r0[0]) < 1 && r5[1] - r5[0] < 1.01e6, `clamped to the start: ${r5}`);
  });

  test("a linked timeline's range is shown and not told back; the user's zoom and pan are told", async () => {
    const { page, errors } = await openTimeline(browser, trace, 'linked');
    const told = () =>
      inPage<[number, number][]>(
        page,
        "return window.syncscope.posted.filter((m) => m.type === 'viewed').map((m) => m.range);",
      );
    const range = () => inPage<[number, number]>(page, 'return view.visibleRange();');
    const before = (await told()).length;
    await page.evaluate(`window.postMessage({ type: 'showRange', range: [100000, 150000] }, '*')`);
    const shown = 'window.syncscope.app.view.visibleRange()';
    await until(page, `Math.abs(${shown}[0] - 100000) < 1 && Math.abs(${shown}[1] - 150000) < 1`);
    assert.equal((await told()).length, before, 'the range a linked timeline sent is not sent back');
    await page.locator('canvas.plot-canvas').hover();
    await page.keyboard.press('w');
    const zoomed = await range();
    assert.ok(zoomed[1] - zoomed[0] < 50000, `zoomed in: ${zoomed}`);
    assert.deepEqual((await told()).at(-1), zoomed);
    await page.keyboard.press('d');
    const panned = await range();
    assert.ok(panned[0] > zoomed[0], `panned right: ${panned}`);
    assert.deepEqual((await told()).at(-1), panned);
    // Scrolling the rows keeps the range: nothing more is told.
    const count = (await told()).length;
    await inPage(page, 'document.querySelector(".scroller").dispatchEvent(new Event("scroll"));');
    await nextFrame(page);
    assert.equal((await told()).length, count);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('dragging pans, a group collapses and expands, and arrow kinds switch off', async () => {
    const { page } = await fresh();
    await inPage(page, 'view.setViewport(50000, 150000);');
    const c = await pointOf(page, 'ops', SAMPLE.produce, 100000);
    await page.mouse.move(c.x, c.y);
    await page.mouse.down();
    await page.mouse.move(c.x - 200, c.y, { steps: 5 });
    await page.mouse.up();
    const [a, b] = await inPage<[number, number]>(page, 'return view.visibleRange();');
    const pxPerNs = await inPage<number>(page, 'return canvas.clientWidth / 100000;');
    assert.ok(Math.abs(a - (50000 + 200 / pxPerNs)) < 200 && Math.abs(b - a - 100000) < 1, `dragged to ${a}..${b}`);
    assert.equal(await inPage(page, 'return view.selection;'), null, 'a drag is not a click');

    await page.locator('.group-header', { hasText: 'GPU 0' }).click();
    assert.equal(await page.locator('.row-header').count(), 1, 'only the host thread row is left');
    assert.equal(await inPage(page, `return view.trackOf({ table: 'ops', id: ${SAMPLE.produce} }).h;`), 0);
    await page.locator('.group-header', { hasText: 'GPU 0' }).click();
    assert.equal(await page.locator('.row-header').count(), 3);

    await page.locator('label.toggle-release input').uncheck();
    assert.deepEqual(await inPage(page, 'return view.arrows;'), { launch: true, event: true, release: false });
    await page.locator('label.toggle-release input').check();
  });

  test('search finds an op by name and steps through matches', async () => {
    const { page } = await fresh();
    await page.fill('input.search', 'CONSUME');
    await page.press('input.search', 'Enter');
    assert.equal(await page.locator('.match-count').textContent(), '1 / 1');
    assert.equal(await page.locator('.details-title').textContent(), 'consume');
    const [a, b] = await inPage<[number, number]>(page, 'return view.visibleRange();');
    assert.ok(a <= t.ops.start[SAMPLE.consume] && b >= t.ops.end[SAMPLE.consume], 'the match is in view');
    await page.fill('input.search', 'cudaEventQuery');
    await page.press('input.search', 'Enter');
    await page.press('input.search', 'Enter');
    assert.equal(await page.locator('.match-count').textContent(), '2 / 2');
    assert.equal((await fieldMap(page))['Answer'], 'ready (cudaSuccess)');
  });

  test('clicking a finding selects what it refers to and zooms to it', async () => {
    const { page } = await fresh();
    await page.locator('li.finding').first().click();
    assert.equal(await page.locator('.details-title').textContent(), 'cudaStreamSynchronize');
    const [a, b] = await inPage<[number, number]>(page, 'return view.visibleRange();');
    const span = t.calls.end[SAMPLE.ssync] - t.calls.begin[SAMPLE.ssync];
    assert.ok(
      a <= t.calls.begin[SAMPLE.ssync] && b >= t.calls.end[SAMPLE.ssync] && b - a < span * 4,
      `zoomed to the call: ${a}..${b}`,
    );
    // Reveal in scenario posts the call's source position to the host.
    await page.locator('button.reveal').click();
    assert.deepEqual(await inPage(page, 'return window.syncscope.posted.at(-1);'), {
      type: 'revealSource',
      line: 12,
      column: 7,
    });
  });

  test('a kernel named like HTML shows as text and runs no script', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const { page, errors, dialogs } = await openTimeline(browser, sampleTrace(evil), 'xss');
    await page.fill('input.search', 'onerror');
    await page.press('input.search', 'Enter');
    assert.equal(await page.locator('.details-title').textContent(), evil);
    const p = await pointOf(page, 'ops', SAMPLE.produce, 100000);
    await page.mouse.move(p.x, p.y);
    assert.equal(await page.locator('.tooltip .tip-title').textContent(), `${evil} · side`);
    assert.equal(await page.locator('img').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('host messages select and reveal an op, and show status and errors', async () => {
    const { page } = await fresh();
    await page.evaluate(`window.postMessage({ type: 'select', op: ${SAMPLE.consume} }, '*')`);
    await until(page, `document.querySelector('.details-title')?.textContent === 'consume'`);
    await page.evaluate(
      `window.postMessage({ type: 'status', text: 'simulating', busy: true }, '*'); window.postMessage({ type: 'error', message: 'runner exited with code 3' }, '*')`,
    );
    await until(page, `!document.querySelector('.error').hidden`);
    // The error ends the work the busy status announced.
    assert.equal(await page.locator('.status').textContent(), '');
    assert.equal(await page.locator('.status.busy').count(), 0);
    assert.equal(await page.locator('.error').textContent(), 'runner exited with code 3');
    await page.evaluate(`document.querySelector('.error').hidden = true`);
  });

  test('a re-posted trace replaces the old one: one click selects once, and a busy status clears', async () => {
    const { page, errors } = await openTimeline(browser, trace, 'reposted');
    // Two traces in a row, as the host posts on two scenario saves; the second renames the kernel.
    await page.evaluate(`(() => {
      const t = window.syncscope.app.trace;
      window.postMessage({ type: 'status', text: 'simulating', busy: true }, '*');
      window.postMessage({ type: 'trace', title: 'first', trace: t }, '*');
      const second = structuredClone(t);
      second.strings = second.strings.map((s) => (s === 'produce' ? 'second' : s));
      window.postMessage({ type: 'status', text: 'simulating', busy: true }, '*');
      window.postMessage({ type: 'trace', title: 'second', trace: second }, '*');
    })()`);
    await until(page, `document.querySelector('.title')?.textContent === 'second'`);
    await nextFrame(page);
    assert.equal(await page.locator('.status').textContent(), '');
    assert.equal(await page.locator('.status.busy').count(), 0);

    const before = await inPage<number>(page, 'return window.syncscope.posted.length;');
    const p = await pointOf(page, 'calls', SAMPLE.sync, 120000);
    await page.mouse.click(p.x, p.y);
    const posted = await inPage<unknown[]>(
      page,
      `return window.syncscope.posted.slice(${before}).filter((m) => m.type === 'selected');`,
    );
    assert.deepEqual(posted, [{ type: 'selected', call: SAMPLE.sync }]);
    assert.equal(await page.locator('.details-title').textContent(), 'cudaEventSynchronize');
    assert.equal((await fieldMap(page))['Released by'], 'second · side');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a trace posted compressed, as the extension posts it, shows once inflated, and a selection posted after it waits for it', async () => {
    const { page, errors } = await openTimeline(browser, trace, 'wire');
    // The extension's own compression (node/wire-trace.ts); the page gets each column as bytes.
    const wire = await wireTrace(trace);
    const columns = Object.fromEntries(
      Object.entries(wire.tables).map(([name, table]) => [
        name,
        Object.fromEntries(Object.entries(table.columns).map(([key, b]) => [key, Buffer.from(b).toString('base64')])),
      ]),
    );
    const renamed = { ...wire, strings: wire.strings.map((s) => (s === 'produce' ? 'inflated' : s)), tables: {} };
    await page.evaluate(`(() => {
      const bytes = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const columns = ${JSON.stringify(columns)};
      const counts = ${JSON.stringify(Object.fromEntries(Object.entries(wire.tables).map(([n, t]) => [n, t.count])))};
      const trace = ${JSON.stringify(renamed)};
      for (const name of Object.keys(columns))
        trace.tables[name] = { count: counts[name], columns: Object.fromEntries(Object.entries(columns[name]).map(([k, v]) => [k, bytes(v)])) };
      window.postMessage({ type: 'wireTrace', title: 'compressed', trace }, '*');
      window.postMessage({ type: 'select', call: ${SAMPLE.sync}, reveal: true }, '*');
    })()`);
    await until(page, `document.querySelector('.title')?.textContent === 'compressed'`);
    await until(page, `document.querySelector('.details-title')?.textContent === 'cudaEventSynchronize'`);
    assert.equal((await fieldMap(page))['Released by'], 'inflated · side');
    assert.equal(
      await inPage(page, 'return JSON.stringify(Array.from(app.trace.ops.start));'),
      JSON.stringify(Array.from(trace.ops.start)),
    );
    // A column that does not inflate to its size is an error the page shows, not a broken trace.
    await page.evaluate(`(() => {
      const t = { ...${JSON.stringify(renamed)} };
      t.tables = { calls: { count: 1, columns: {} }, ops: { count: 0, columns: {} }, edges: { count: 0, columns: {} }, accesses: { count: 0, columns: {} } };
      window.postMessage({ type: 'wireTrace', title: 'broken', trace: t }, '*');
    })()`);
    await until(page, `!document.querySelector('.error').hidden`);
    assert.match((await page.locator('.error').textContent()) ?? '', /^Cannot read the trace: /);
    assert.equal(await page.locator('.title').textContent(), 'compressed');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a standalone page ignores messages posted by other windows', async () => {
    const { page } = await openTimeline(browser, trace, 'foreign');
    // A frame of the same page posting to its parent stands in for any foreign window.
    await page.evaluate(`document.body.append(document.createElement('iframe'))`);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame, 'the frame is there');
    await frame.evaluate(`parent.postMessage({ type: 'error', message: 'foreign' }, '*')`);
    await page.evaluate(`window.postMessage({ type: 'status', text: 'own', busy: false }, '*')`);
    await until(page, `document.querySelector('.status')?.textContent === 'own'`);
    assert.equal(await page.locator('.error').isHidden(), true);
    await page.close();
  });

  test('ruler measures between two points with shift+drag', async () => {
    const { page } = await fresh();
    const a = await pointOf(page, 'ops', SAMPLE.produce, 50000);
    const b = await pointOf(page, 'ops', SAMPLE.produce, 150000);
    await page.keyboard.down('Shift');
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(b.x, b.y, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const r = await inPage<{ a: number; b: number }>(page, 'return view.ruler;');
    assert.ok(Math.abs(r.b - r.a - 100000) < 1000, `measured ${r.b - r.a} ns`);
  });

  test('viewport and selection survive a reload', async () => {
    const { page } = await openTimeline(browser, trace, 'persist');
    await inPage(
      page,
      `view.setViewport(100000, 150000); app.select({ table: 'ops', id: ${SAMPLE.consume} }, false, true);`,
    );
    // The state must be saved before the reload, and the checks must read the new document: the
    // old one answers until the navigation replaces it.
    const saved = `Object.values(sessionStorage).map((v) => JSON.parse(v)).some((s) =>
      Math.abs(s.t0 - 100000) < 10 && Math.abs(s.t1 - 150000) < 10 && s.selection && s.selection.id === ${SAMPLE.consume})`;
    await until(page, saved);
    await page.evaluate('window.beforeReload = true');
    await page.reload();
    await until(page, '!window.beforeReload && !!(window.syncscope && window.syncscope.app.view)');
    await nextFrame(page);
    const [a, b] = await inPage<[number, number]>(page, 'return view.visibleRange();');
    assert.ok(Math.abs(a - 100000) < 10 && Math.abs(b - 150000) < 10, `restored ${a}..${b}`);
    assert.equal(await page.locator('.details-title').textContent(), 'consume');
    await page.close();
  });

  test("the heading names the trace's source and device, and its scenario only where the title is not that name", async () => {
    const named = sampleTrace();
    const name = named.meta.scenario!.name;
    const origin = async (title: string) => {
      const { page, errors } = await openTimeline(browser, named, title);
      const text = await page.locator('.heading .origin').textContent();
      assert.deepEqual(errors, []);
      await page.close();
      return text;
    };
    const source = [named.meta.source, named.meta.device?.name].filter(Boolean).join(' · ');
    assert.equal(await origin(name), source);
    assert.equal(await origin('nightly run'), `${source} · ${name}`);
  });

  test('switching the theme class re-colours the canvas', async () => {
    const { page } = await fresh();
    const empty = await pointOf(page, 'ops', SAMPLE.produce, -2000);
    const before = rgbHex(await pixelAt(page, empty.x, empty.y));
    await page.evaluate("document.body.classList.replace('theme-light', 'theme-dark')");
    await nextFrame(page);
    const after = rgbHex(await pixelAt(page, empty.x, empty.y));
    assert.equal(before, '#ffffff');
    assert.equal(after, '#1e1f22');
    await page.evaluate("document.body.classList.replace('theme-dark', 'theme-light')");
  });
});

function rgbHex([r, g, b]: [number, number, number]): string {
  return '#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('');
}

async function fieldMap(page: import('playwright-core').Page): Promise<Record<string, string>> {
  const keys = await page.locator('.details dl.fields dt').allTextContents();
  const values = await page.locator('.details dl.fields dd').allTextContents();
  return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
}
