// Text from inputs (kernel, stream, scenario and file names, error messages quoting them) is shown
// in a terminal, where control characters are commands: ESC starts colour and cursor sequences, \r
// overwrites the line, C1 characters act as ESC in some terminals. Format characters (Unicode
// category Cf: the bidi overrides and isolates U+202A-202E and U+2066-2069, the marks U+200E and
// U+200F, zero-width characters, U+FEFF) change how the text around them is displayed, so a file
// name can read as another one. Every text output shows them all escaped instead, as \xHH or \uHHHH
// (\n, \r and \t by their short names). JSON output keeps JSON's escaping.

// C0 controls, DEL, C1 controls and format characters; the second lets the text's own line breaks and tabs through.
/* eslint-disable no-control-regex -- matching control characters is the point */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\p{Cf}]/gu;
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}]/gu;
/* eslint-enable no-control-regex */
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, '0');

function escapeOne(c: string): string {
  const n = c.codePointAt(0)!;
  return SHORT[c] ?? (n <= 0xff ? `\\x${hex(n, 2)}` : n <= 0xffff ? `\\u${hex(n, 4)}` : `\\u{${hex(n, 1)}}`);
}

/** `s` with every control and format character escaped: for one line of terminal output. */
export const escapeControls = (s: string): string => s.replace(CONTROLS, escapeOne);

/** The same, but line breaks and tabs stay: for text of several lines. */
export const escapeControlsKeepLines = (s: string): string => s.replace(CONTROLS_BUT_LINES, escapeOne);
