// The one HTML page that hosts the timeline, for both of its homes: VS Code's webview and the
// standalone file that `syncscope html` writes. The bundle and its styles are inlined under a nonce,
// so the page loads nothing and its CSP can forbid every other script. Pure string work: the
// extension host and the CLI import it; nothing here touches the DOM.

export interface TimelinePageParts {
  /** The whole Content-Security-Policy (our own text, no double quotes); it must allow `nonce` for scripts and styles. */
  csp: string;
  nonce: string;
  title: string;
  /** dist/webview.js */
  script: string;
  /** dist/webview.css and any other stylesheet text. */
  styles: string[];
  /** JSON for the standalone page's embedded trace, whole or in chunks; every "<" must already be escaped. */
  data?: string | Iterable<string>;
}

/**
 * The page's policy: nothing by default, scripts and styles only by nonce. `source` is VS Code's
 * webview.cspSource (empty for the standalone file), for the images and fonts VS Code's own CSS uses.
 */
export function timelineCsp(nonce: string, source = ''): string {
  const from = (s: string) => [source, s].filter(Boolean).join(' ');
  return (
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${from(`'nonce-${nonce}'`)}; ` +
    `img-src ${from('data:')}; font-src ${from('data:')}; base-uri 'none'; form-action 'none'`
  );
}

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** Inside a raw-text element only its own end tag (any case) can end it early; `<\/` reads the same in JS and CSS. */
const escapeRawText = (s: string, tag: 'script' | 'style'): string =>
  s.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

/** The page as one string: the webview's page, which embeds no trace. */
export const timelinePageHtml = (p: TimelinePageParts): string => [...timelinePageChunks(p)].join('');

/**
 * The page as a sequence of chunks: the head, then `data`'s chunks as they come, then the tail. The
 * standalone page embeds a whole trace, which may be longer than the longest string V8 can hold, so
 * the page is never built as one string.
 */
export function* timelinePageChunks(p: TimelinePageParts): Generator<string> {
  const styles = p.styles.map((css) => `<style nonce="${p.nonce}">${escapeRawText(css, 'style')}</style>`).join('\n  ');
  yield `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${p.csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>${escapeHtml(p.title)}</title>
  ${styles}
</head>
<body>
  <div id="syncscope"></div>`;
  if (p.data !== undefined) {
    yield '\n  <script type="application/json" id="syncscope-data">';
    yield* typeof p.data === 'string' ? [p.data] : p.data;
    yield '</script>';
  }
  yield `
  <script nonce="${p.nonce}">${escapeRawText(p.script, 'script')}</script>
</body>
</html>
`;
}
