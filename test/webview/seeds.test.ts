import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { isWait } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { inPage, launch, openTimeline, resultsDir, skipReason } from './browser';

const seeds = readdirSync(repoPath('examples'))
  .filter((f) => /^seed-.*\.scenario\.json$/.test(f))
  .sort();

describe('seed examples in the timeline', { skip: skipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('there are seed examples to render', () => assert.ok(seeds.length >= 5, seeds.join(', ')));

  for (const file of seeds) {
    test(`${file} renders every lane, its kernels, and the releasing op of each wait`, async () => {
      const program = compileScenario(readFileSync(repoPath('examples', file), 'utf8'), file);
      const trace = simulate(program);
      trace.findings = analyze(trace, { program }).findings;
      const name = file.replace('.scenario.json', '');
      const { page, errors, dialogs } = await openTimeline(browser, trace, name, {
        theme: name.length % 2 ? 'dark' : 'light',
      });
      assert.equal(await page.locator('.row-header').count(), trace.lanes.length);
      // Each kernel long enough to see is drawn in the kernel colour at its middle.
      const kernelColor = (await inPage<string>(page, 'return view.palette.kernel;')).toLowerCase();
      const [v0, v1] = await inPage<[number, number]>(page, 'return view.visibleRange();');
      const pxPerNs = 1300 / (v1 - v0);
      await page.screenshot({ path: join(resultsDir(), `${name}.png`) });
      const kernels: number[] = [];
      for (let i = 0; i < trace.ops.count; i++)
        if (trace.ops.kind[i] === 0 && (trace.ops.end[i] - trace.ops.start[i]) * pxPerNs >= 10) kernels.push(i);
      // Arrows may cross a kernel: most of a row of probes across it must still see the kernel.
      const seen = await inPage<string[][]>(
        page,
        `
        const d = window.devicePixelRatio || 1; const ctx = canvas.getContext('2d'); const top = document.querySelector('.scroller').scrollTop;
        return ${JSON.stringify(kernels)}.map((i) => [0.2, 0.35, 0.5, 0.65, 0.8].map((f) => {
          const tr = view.trackOf({ table: 'ops', id: i });
          const t = trace.ops.start[i] + f * (trace.ops.end[i] - trace.ops.start[i]);
          const p = ctx.getImageData(Math.round(view.x(t) * d), Math.round((tr.y - top + tr.h / 2 + 6) * d), 1, 1).data;
          return '#' + [p[0], p[1], p[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
        }));`,
      );
      kernels.forEach((k, j) =>
        assert.ok(
          seen[j].filter((c) => c === kernelColor).length >= 3,
          `kernel ${k}: ${seen[j].join(' ')}, expected ${kernelColor}`,
        ),
      );
      // Clicking each wait that has a releasing op names it in the details.
      for (let i = 0; i < trace.calls.count; i++) {
        const rel = trace.calls.releasedBy[i];
        if (!isWait(trace, i) || rel < 0) continue;
        await inPage(page, `app.select({ table: 'calls', id: ${i} }, 'zoom', true);`);
        const dd = await page.locator('.details dl.fields dd').allTextContents();
        const dt = await page.locator('.details dl.fields dt').allTextContents();
        const released = dd[dt.indexOf('Released by')];
        assert.equal(
          released,
          `${trace.strings[trace.ops.name[rel]] || ['kernel', 'memcpy', 'memset', 'eventRecord', 'waitEvent', 'hostFunc'][trace.ops.kind[rel]]} · ${trace.lanes[trace.ops.lane[rel]].name}`,
        );
      }
      assert.deepEqual(errors, []);
      assert.deepEqual(dialogs, []);
      await page.close();
    });
  }
});
