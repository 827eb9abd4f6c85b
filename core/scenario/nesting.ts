// The nesting limit: JSON parsers and tree walks recurse once per level, so a file nested ten
// thousand deep would overflow the stack before any error could be reported. One linear pass over
// the text, skipping strings and comments, finds the first bracket past the limit.

/** Far deeper than any scenario needs: 64 nested repeats take about 130 levels. */
export const MAX_NESTING = 256;

/** The offset of the first `{` or `[` nested deeper than `max` levels, or -1. */
export function tooDeep(text: string, max = MAX_NESTING): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = stringEnd(text, i);
    else if (c === 0x2f /* / */ && text.charCodeAt(i + 1) === 0x2f) i = lineEnd(text, i);
    else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a /* * */) i = commentEnd(text, i);
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return i;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth = Math.max(0, depth - 1);
  }
  return -1;
}

/** The offset of the quote that closes the string opened at `start` (a line break ends it too, as in JSON). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22 || c === 0x0a || c === 0x0d) return i;
  }
  return text.length;
}

function lineEnd(text: string, start: number): number {
  const n = text.indexOf('\n', start);
  return n < 0 ? text.length : n;
}

function commentEnd(text: string, start: number): number {
  const n = text.indexOf('*/', start + 2);
  return n < 0 ? text.length : n + 1;
}
