// The timeline webview's page. Its CSP allows only our own bundle (by nonce) and our own
// stylesheets, so a trace that carries hostile strings cannot run script in the webview.

export interface TimelinePage {
  /** webview.cspSource */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUris: string[];
  title: string;
}

export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(18)).toString('base64').replace(/[+/=]/g, (c) => ({ '+': '-', '/': '_', '=': '' })[c] ?? '');
}

export const contentSecurityPolicy = (cspSource: string, nonce: string): string =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${cspSource} 'nonce-${nonce}'; img-src ${cspSource} data:; font-src ${cspSource}`;

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function timelineHtml(p: TimelinePage): string {
  const links = p.styleUris.map((u) => `<link rel="stylesheet" href="${escapeHtml(u)}">`).join('\n  ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(p.cspSource, p.nonce)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>${escapeHtml(p.title)}</title>
  ${links}
</head>
<body>
  <div id="syncscope"></div>
  <script nonce="${p.nonce}" src="${escapeHtml(p.scriptUri)}"></script>
</body>
</html>`;
}
