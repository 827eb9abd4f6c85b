// jsonc-parser's default (UMD) entry loads its parts with a dynamic require that bundlers cannot
// follow, so the bundles break at run time; its ES module entry bundles cleanly.
export { parseTree, printParseErrorCode } from 'jsonc-parser/lib/esm/main.js';
export type { Node, ParseError } from 'jsonc-parser/lib/esm/main.js';
