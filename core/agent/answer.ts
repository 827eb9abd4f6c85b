// How big one answer of `syncscope mcp` may be: a model reads every character, so a list is cut at
// a number of items and at a number of characters, and says how many it left out; a string from a
// trace (a templated kernel name, a deep context) is cut too. Text goes out with control and format
// characters escaped, as the CLI prints it.
import { escapeControls } from '../../core/terminal';

/** The JSON of one answer stays under this many characters, and so does its text. */
export const MAX_CHARS = 40_000;
/** A string from a trace longer than this is cut, with an ellipsis. */
export const MAX_STRING = 400;
/** A call stack longer than this keeps its innermost frames. */
export const MAX_FRAMES = 8;

/** An answer: text for the model and the same facts as JSON (the tool's structured content). */
export interface Answer<T extends object = object> {
  text: string;
  data: T;
}

export const clip = (s: string, max = MAX_STRING): string => (s.length > max ? s.slice(0, max - 1) + '…' : s);

/** `value` with every string in it clipped. */
export function clipStrings<T>(value: T): T {
  if (typeof value === 'string') return clip(value) as T;
  if (Array.isArray(value)) return value.map(clipStrings) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipStrings(v)])) as T;
  return value;
}

/**
 * Drops items from the end of `data[key]` (and their lines of text, `blocks`, one per item) until
 * both the JSON and the text fit MAX_CHARS, with `room` characters left for the rest of the text;
 * returns how many it dropped. The items come largest first, so what is dropped matters least.
 */
export function fitList<T extends object>(data: T, key: keyof T, blocks: string[][] = [], room = 1000): number {
  const items = data[key] as unknown[];
  let text = blocks.reduce((n, b) => n + b.reduce((m, l) => m + l.length + 1, 0), 0);
  let dropped = 0;
  while (items.length && (JSON.stringify(data).length > MAX_CHARS || text > MAX_CHARS - room)) {
    items.pop();
    text -= (blocks.pop() ?? []).reduce((m, l) => m + l.length + 1, 0);
    dropped++;
  }
  return dropped;
}

/** Lines of text, each escaped, cut at MAX_CHARS with a note of what was cut. */
export function textOf(lines: string[]): string {
  const text = lines.map(escapeControls).join('\n');
  if (text.length <= MAX_CHARS) return text;
  return `${text.slice(0, MAX_CHARS)}\n… ${text.length - MAX_CHARS} more characters left out; the structured content has every listed item`;
}
