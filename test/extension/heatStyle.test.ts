// How the editor draws a line's heat: the contributed theme colours it names, the gutter mark whose
// filled bars say the level, and the hover's words, on the capture of test/fixtures/editor/train.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { lineHeats } from '../../core/analyze/line-heat';
import { siteLines } from '../../core/analyze/site-lines';
import { iterationWindow } from '../../core/overview/window';
import {
  HEAT_FOREGROUND,
  HEAT_RULER,
  heatBackgroundColor,
  heatGutterIcon,
  heatHover,
} from '../../extension/logic/heatStyle';
import { repoPath } from '../helpers/paths';
import { trainCapture } from '../helpers/python-capture';

const manifest = JSON.parse(readFileSync(repoPath('package.json'), 'utf8'));

test('every colour the heat names is contributed, with a default for light, dark and both high-contrast themes', () => {
  const colors = new Map(
    (manifest.contributes.colors as { id: string; defaults: Record<string, string> }[]).map((c) => [c.id, c.defaults]),
  );
  for (const id of [1, 2, 3, 4, 5].map(heatBackgroundColor).concat(HEAT_FOREGROUND, HEAT_RULER)) {
    const defaults = colors.get(id);
    assert.ok(defaults, `${id} is contributed`);
    assert.deepEqual(Object.keys(defaults).sort(), ['dark', 'highContrast', 'highContrastLight', 'light'], id);
  }
});

test('the gutter mark of level 2 fills two of its five bars', () => {
  const svg = decodeURIComponent(heatGutterIcon(2, 'dark').replace(/^data:image\/svg\+xml;utf8,/, ''));
  const fills = [...svg.matchAll(/fill="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(fills, ['#ff9157', '#ff9157', '#ff915740', '#ff915740', '#ff915740']);
});

test("the hover gives the line's share, its waits, and the releasing op by its whole name", () => {
  const t = trainCapture();
  const [sync, item] = lineHeats(t, siteLines(t), iterationWindow(t));
  // 3 x 573 µs of the 1809 µs the capture's host waited.
  assert.deepEqual(heatHover(sync), [
    "95% of the trace's blocked host time (heat 5 of 5): 3 waits, 1.72 ms in all",
    'released most by "at::native::{anonymous}::multi_tensor_apply_kernel<at::native::{anonymous}::TensorListMetadata<4>, ' +
      'at::native::{anonymous}::FusedAdamMathFunctor<float, 4>, float>" on legacy default (1.72 ms)',
  ]);
  assert.equal(heatHover(item)[0], "5% of the trace's blocked host time (heat 1 of 5): 3 waits, 90 µs in all");
});
