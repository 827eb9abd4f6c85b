// The timeline of a Python program in headless Chromium: a release arrow under the pointer names
// the line that waited and the line that launched the op that released it (the capture of
// test/fixtures/editor/train.py), and a profiled training step's first screen shows its GPU stream,
// its main thread folded to the user's frames until its fold button is clicked. Screenshots of both,
// light and dark, go to test-results/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { importPytorch } from '../../core/import/pytorch';
import { EDGE_KINDS, str, type Trace } from '../../core/trace/model';
import { trainCapture } from '../helpers/python-capture';
import { repoPath } from '../helpers/paths';
import { inPage, launch, nextFrame, openTimeline, resultsDir, skipReason } from './browser';

/** The release arrow into `call`. */
const releaseInto = (t: Trace, call: number): number => {
  for (let e = 0; e < t.edges.count; e++)
    if (EDGE_KINDS[t.edges.kind[e]] === 'release' && t.edges.to[e] === call) return e;
  throw new Error(`no release arrow into call ${call}`);
};

/**
 * A client point on the drawn arrow of `edge`: along the row halfway between its ends, the pixel
 * nearest the middle whose colour is the release arrows' (read off the canvas, not the geometry).
 */
async function pointOnArrow(page: Page, edge: number): Promise<{ x: number; y: number }> {
  const found = await inPage<{ x: number; y: number } | null>(
    page,
    `const a = view.releaseArrows.find((r) => r.edge === ${edge});
    if (!a) return null;
    const probe = document.createElement('canvas').getContext('2d');
    probe.fillStyle = view.palette.arrowRelease; probe.fillRect(0, 0, 1, 1);
    const want = probe.getImageData(0, 0, 1, 1).data;
    const d = window.devicePixelRatio || 1;
    const y = Math.round((a.y0 + a.y1) / 2);
    const x0 = Math.floor(Math.min(a.x0, a.x1)), x1 = Math.ceil(Math.max(a.x0, a.x1));
    const row = canvas.getContext('2d').getImageData(x0 * d, y * d, (x1 - x0 + 1) * d, 1).data;
    let best = null;
    for (let k = 0; k < row.length / 4; k++) {
      const diff = Math.abs(row[4 * k] - want[0]) + Math.abs(row[4 * k + 1] - want[1]) + Math.abs(row[4 * k + 2] - want[2]);
      const x = x0 + k / d;
      if (diff < 60 && (!best || Math.abs(x - (a.x0 + a.x1) / 2) < Math.abs(best - (a.x0 + a.x1) / 2))) best = x;
    }
    const r = canvas.getBoundingClientRect();
    return best === null ? null : { x: r.left + best, y: r.top + y };`,
  );
  assert.ok(found, `release arrow ${edge} is drawn`);
  return found;
}

describe('a Python program in the timeline (headless Chromium)', { skip: skipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('hovering a release arrow shows the line that waited and the line that launched the releasing op', async () => {
    const trace = trainCapture();
    // The first step's cudaDeviceSynchronize (call 3), released by the AdamW kernel.
    const edge = releaseInto(trace, 3);
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors } = await openTimeline(browser, trace, `python-capture-${theme}`, { theme });
      await inPage(page, `view.setViewport(trace.calls.begin[0] - 20000, trace.calls.end[4] + 20000); view.draw();`);
      await nextFrame(page);
      const p = await pointOnArrow(page, edge);
      await page.mouse.move(p.x, p.y);
      const tip = page.locator('.tooltip');
      await tip.waitFor({ state: 'visible' });
      assert.deepEqual(await tip.locator('div').allTextContents(), [
        '"multi_tensor_apply_kernel<TensorListMetadata>" released cudaDeviceSynchronize',
        'waited at /home/ada/proj/train.py:18 in <module>',
        'launched at /home/ada/proj/train.py:11 in step()',
        'host blocked 573 µs',
      ]);
      await page.screenshot({ path: join(resultsDir(), `python-capture-release-hover-${theme}.png`) });
      // Off the arrow, along the GPU's header where nothing is drawn, the tooltip goes.
      await page.mouse.move(p.x - 60, p.y);
      await tip.waitFor({ state: 'hidden' });
      // Selected, the wait's details link both lines.
      await inPage(page, 'app.select({ table: "calls", id: 3 }, false, true);');
      const launched = page
        .locator('.details dt', { hasText: 'Launched at' })
        .locator('xpath=following-sibling::dd[1]');
      assert.equal(await launched.innerText(), '/home/ada/proj/train.py:11 in step()');
      await launched.locator('a.source-link').click();
      assert.deepEqual(await inPage(page, 'return window.syncscope.posted.at(-1);'), {
        type: 'openSource',
        file: '/home/ada/proj/train.py',
        line: 11,
      });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('a profiled training step opens on its user frames and its GPU stream; a click shows every frame', async () => {
    const text = gunzipSync(
      readFileSync(repoPath('test/fixtures/torch/profile/train_step.profile.json.gz')),
    ).toString();
    const trace = importPytorch(text);
    const libraryFrame = [...Array(trace.calls.count).keys()].find(
      (i) => trace.calls.lane[i] === 0 && str(trace, trace.calls.name[i]).startsWith('torch/'),
    );
    assert.ok(libraryFrame !== undefined);
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors } = await openTimeline(browser, trace, `python-profile-${theme}`, { theme });
      const main = page.locator('.row-header', { hasText: 'thread 922 (python3)' });
      const stream = page.locator('.row-header', { hasText: 'stream 7' });
      const fold = main.locator('button.fold-toggle');
      const scroller = page.locator('.scroller');
      // Folded: 12 of the main thread's 20 tracks are library frames (the launcher's are not in the trace).
      assert.equal(await fold.textContent(), '+12');
      assert.equal(await fold.getAttribute('aria-expanded'), 'false');
      const box = await scroller.boundingBox();
      const streamBox = await stream.boundingBox();
      assert.ok(box && streamBox);
      assert.ok(streamBox.y + streamBox.height <= box.y + box.height, 'the stream is on the first screen');
      await page.screenshot({ path: join(resultsDir(), `python-profile-folded-${theme}.png`) });
      await fold.click();
      await nextFrame(page);
      assert.equal(await fold.getAttribute('aria-expanded'), 'true');
      assert.equal(await fold.textContent(), '−');
      assert.equal((await main.boundingBox())?.height, 20 * 20 + 12);
      const below = await stream.boundingBox();
      assert.ok(below && below.y >= streamBox.y + 12 * 20, 'unfolded, the stream moves down by the 12 tracks shown');
      await page.screenshot({ path: join(resultsDir(), `python-profile-unfolded-${theme}.png`) });
      // The choice is kept with the page's state, and a second click folds again.
      assert.deepEqual(await inPage(page, 'return window.syncscope.app.host.getState().unfolded;'), [0]);
      await fold.click();
      assert.equal(await fold.getAttribute('aria-expanded'), 'false');
      // Selecting a frame folded away (torch's own, on the main thread) unfolds its thread to show it.
      await inPage(page, `app.select({ table: "calls", id: ${libraryFrame} }, true, false);`);
      assert.equal(await page.locator('.row-header button.fold-toggle').first().getAttribute('aria-expanded'), 'true');
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});
