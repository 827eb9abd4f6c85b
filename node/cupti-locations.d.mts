export function cuptiLocations(
  env: Record<string, string | undefined>,
  exists: (path: string) => boolean,
  list: (dir: string) => string[],
  headers?: boolean,
): { root: string; lib: string; include?: string } | undefined;
