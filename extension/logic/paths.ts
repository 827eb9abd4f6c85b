// Checks on paths that come from files the user opened rather than from the user.

/**
 * True for a relative path that stays at or below its base: not absolute (POSIX, Windows drive or
 * UNC), no `..` segment, no URI scheme. Both separators count, as a trace may come from Windows.
 */
export function isContainedRelativePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.startsWith('\\') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return false;
  return !path.split(/[\\/]/).includes('..');
}
