// Text from inputs (kernel, stream, scenario and file names, error messages quoting them) is shown
// in a terminal, where control characters are commands: ESC starts colour and cursor sequences, \r
// overwrites the line, C1 characters act as ESC in some terminals. Every text output shows them
// escaped instead, as \xHH (\n, \r and \t by their short names). JSON output keeps JSON's escaping.

// C0 controls, DEL and C1 controls; the second lets the text's own line breaks and tabs through.
/* eslint-disable no-control-regex -- matching control characters is the point */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/* eslint-enable no-control-regex */
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeOne = (c: string): string => SHORT[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** `s` with every control character escaped: for one line of terminal output. */
export const escapeControls = (s: string): string => s.replace(CONTROLS, escapeOne);

/** The same, but line breaks and tabs stay: for text of several lines. */
export const escapeControlsKeepLines = (s: string): string => s.replace(CONTROLS_BUT_LINES, escapeOne);
