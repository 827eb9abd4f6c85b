// Autograd runs a backward pass on threads of its own (torch's engine threads), where no Python
// runs, so neither a line marker nor a captured Python stack places their launches. While they
// launch, the thread that called backward() waits inside it: a call made on a thread without
// Python during exactly one such backward() is placed at the line that called it, as a deduction
// labelled as such. The profile import (pytorch-markers.ts) and the capture import
// (capture-sites.ts) find the backward() spans each from their own data; the placing is this one.
import { countAtMost } from '../stats';
import type { SourceFrame, TraceBuilder } from '../trace/model';
import { isTorchModule, type SiteTable } from './python-sites';

export const BACKWARD_DEDUCED = "made by autograd's engine thread while this line ran backward()";

/** Where a thread ran backward(): from `begin` to `end`, called from user site `site`. */
export interface BackwardSpan {
  begin: number;
  end: number;
  site: number;
}

/** A frame of torch's that runs a backward pass and waits for the engine: Tensor.backward, torch.autograd.backward or grad. */
export function isBackwardFrame(f: SourceFrame): boolean {
  if (isTorchModule(f.file, '_tensor.py')) return /(^|\.)backward$/.test(f.function);
  if (isTorchModule(f.file, 'autograd/__init__.py')) return f.function === 'backward' || f.function === 'grad';
  return isTorchModule(f.file, 'autograd/graph.py') && f.function === '_engine_run_backward';
}

/**
 * Places each call that `eligible` selects, and that no source has placed, at the site of the one
 * backward() span that holds its start, as a deduction. Where spans of two threads overlap, the
 * engine's work could be either's: calls in them stay without a line.
 */
export function placeInBackwardSpans(
  b: TraceBuilder,
  sites: SiteTable,
  spans: BackwardSpan[],
  eligible: (call: number) => boolean,
): number {
  if (!spans.length) return 0;
  const sorted = spans.slice().sort((x, y) => x.begin - y.begin);
  // Overlapping spans give no answer: their site becomes -1.
  const site = sorted.map((s) => s.site);
  let reach = -1;
  for (let k = 0; k < sorted.length; k++) {
    if (reach >= 0 && sorted[k].begin <= sorted[reach].end) {
      site[k] = -1;
      site[reach] = -1;
    }
    if (reach < 0 || sorted[k].end > sorted[reach].end) reach = k;
  }
  const placed = site.map((s) => (s >= 0 ? sites.deduced(s, BACKWARD_DEDUCED) : -1));
  const c = b.calls.cols;
  let count = 0;
  for (let i = 0; i < b.calls.count; i++) {
    if (c.site[i] > 0 || !eligible(i)) continue;
    const k = countAtMost(sorted.length, (j) => sorted[j].begin, c.begin[i]) - 1;
    if (k < 0 || c.begin[i] > sorted[k].end || placed[k] < 0) continue;
    c.site[i] = placed[k] + 1;
    count++;
  }
  return count;
}
