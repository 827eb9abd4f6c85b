// File names for traces the extension converts or exports.

/** Default name for a converted file: `run.pt.trace.json` -> `run.pt.syncscope.json`. */
export function savedTraceName(sourceName: string): string {
  const base = sourceName
    .replace(/\.gz$/i, '')
    .replace(/(\.trace)?\.json$/i, '')
    .replace(/\.scenario$/i, '');
  return `${base}.syncscope.json`;
}

export function chromeTraceName(sourceName: string): string {
  const base = sourceName.replace(/\.gz$/i, '').replace(/\.(syncscope|scenario)?\.json$/i, '');
  return `${base}.chrome.json`;
}
