// The parser, simulator, analyses and converters are a bundle of their own (dist/engines.js),
// loaded on first use: activating in a workspace with scenarios loads none of them.
import { join } from 'node:path';

type Engines = typeof import('./engines');
let loaded: Engines | undefined;

// A computed path, so the bundler leaves this require for run time.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
export const engines = (): Engines => (loaded ??= require(join(__dirname, 'engines.js')) as Engines);
