// S21 in the timeline: a two-GPU trace shows one group per device, named after its GPU, and the
// wait on GPU 1 for GPU 0's event is drawn as a dashed arrow in the cross-device colour, on top.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { str } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { inPage, launch, openTimeline, resultsDir, skipReason } from './browser';

const file = 'multi-gpu-pipeline.scenario.json';
const trace = simulate(compileScenario(readFileSync(repoPath('examples', file), 'utf8'), file));
const opNamed = (name: string) =>
  [...Array(trace.ops.count).keys()].find((i) => str(trace, trace.ops.name[i]) === name)!;

describe('a two-GPU trace in the timeline', { skip: skipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test("S21 rows are grouped per GPU, and the cross-device wait's event arrow is drawn dashed in its own colour", async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors } = await openTimeline(browser, trace, `multi-gpu-${theme}`, { theme });
      assert.deepEqual(await page.locator('.group-header').allTextContents(), [
        '▾Host threads',
        '▾GPU 0 · NVIDIA H200',
        '▾GPU 1 · NVIDIA H200',
      ]);
      const headers = [];
      for (const h of await page.locator('.row-header').all())
        headers.push((await h.locator('span').first().textContent()) ?? '');
      assert.deepEqual(headers, ['main', 'default', 'producer', 'consumer']);
      assert.equal(await page.locator('.legend li', { hasText: 'Between two GPUs' }).count(), 1);

      // Zoomed on the moment GPU 0's record completes: its event arrow drops into GPU 1's wait.
      const [rec, wait] = [opNamed('record produced'), opNamed('wait produced')];
      const at = trace.ops.end[rec];
      await inPage(page, `view.setViewport(${at - 60_000}, ${at + 60_000}); view.draw();`);
      assert.equal(await inPage<number>(page, 'return view.lastCrossDeviceArrows;'), 1);
      const color = (await inPage<string>(page, 'return view.palette.arrowCrossDevice;')).toLowerCase();
      // Its vertical run, between the record's row and the wait's: a dashed line, so some pixels
      // on it are the arrow's colour and some (the gaps) are not.
      const column = await inPage<string[]>(
        page,
        `
        const r = canvas.getBoundingClientRect(); const top = document.querySelector('.scroller').scrollTop;
        const from = view.trackOf({ table: 'ops', id: ${rec} }); const to = view.trackOf({ table: 'ops', id: ${wait} });
        const x = view.x(${trace.ops.end[wait]});
        const ctx = canvas.getContext('2d'); const out = [];
        for (let y = Math.ceil(from.y + from.h) + 2; y < to.y - 2; y++) {
          let hit = '';
          for (const dx of [-1, 0, 1]) {
            const p = ctx.getImageData(Math.round(x + dx), Math.round(y - top), 1, 1).data;
            const hex = '#' + [p[0], p[1], p[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
            if (!hit || hex === ${JSON.stringify(color)}) hit = hex;
          }
          out.push(hit);
        }
        return out;`,
      );
      const on = column.filter((c) => c === color).length;
      assert.ok(column.length >= 20, `the rows are ${column.length} px apart`);
      assert.ok(on >= column.length / 3, `${theme}: arrow colour on ${on} of ${column.length} px: ${column.join(' ')}`);
      assert.ok(on < column.length, 'the line is dashed');
      // The same arrow within one GPU would be the event colour: this one is not.
      assert.notEqual(color, (await inPage<string>(page, 'return view.palette.arrowEvent;')).toLowerCase());
      await page.screenshot({ path: join(resultsDir(), `timeline-multi-gpu-${theme}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});
