// How the editor draws a line's heat (core/analyze/line-heat.ts), free of `vscode` so it is
// unit-tested under node: the theme colour of each level (contributed in package.json with a
// default for light, dark and both high-contrast themes), the gutter mark, whose bars say the level
// without relying on colour, and the hover's words.
import type { LineHeat } from '../../core/analyze/line-heat';
import { HEAT_LEVELS } from '../../core/analyze/line-heat';
import { formatNs } from '../../core/units';

export const LINE_HEAT_SETTING = 'lineHeat';
export const TOGGLE_LINE_HEAT = 'syncscope.toggleLineHeat';

/** The contributed colour of a level's line background: `syncscope.lineHeat3.background`. */
export const heatBackgroundColor = (level: number): string => `syncscope.lineHeat${level}.background`;
/** The end-of-line figure's colour, and the overview ruler's mark. */
export const HEAT_FOREGROUND = 'syncscope.lineHeat.foreground';
export const HEAT_RULER = 'syncscope.lineHeat.ruler';

/** The gutter mark's colours: a gutter icon is an image, which theme colours cannot reach, so each kind of theme has its own. */
const GUTTER = {
  light: { on: '#c2410c', off: '#c2410c40' },
  dark: { on: '#ff9157', off: '#ff915740' },
} as const;

/**
 * The gutter mark of a level: HEAT_LEVELS bars rising left to right, the first `level` filled, as
 * an SVG data URI. A theme's kind picks the colours (high-contrast themes take those of their kind).
 */
export function heatGutterIcon(level: number, theme: keyof typeof GUTTER): string {
  const { on, off } = GUTTER[theme];
  const bars = Array.from({ length: HEAT_LEVELS }, (_, i) => {
    const height = 4 + i * 2.5;
    const fill = i < level ? on : off;
    return `<rect x="${1 + i * 3}" y="${15 - height}" width="2" height="${height}" fill="${fill}"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">${bars}</svg>`;
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

/**
 * `95% of the trace's blocked host time (heat 5 of 5): 3 waits, 1.72 ms in all`, then the op that
 * released most of it by its whole name, which the figure at the line's end shortens.
 */
export function heatHover(h: LineHeat): string[] {
  const pct = h.share >= 0.01 ? `${Math.round(h.share * 100)}%` : 'under 1%';
  const waits = h.site.count === 1 ? '1 wait' : `${h.site.count} waits`;
  const lines = [
    `${pct} of the trace's blocked host time (heat ${h.level} of ${HEAT_LEVELS}): ${waits}, ${formatNs(h.site.totalBlockedNs)} in all`,
  ];
  const r = h.releaser;
  if (r)
    lines.push(
      `released most by ${r.likely ? 'likely ' : ''}"${r.fullName}" on ${r.stream} (${formatNs(r.blockedNs)})`,
    );
  return lines;
}
