// The `syncscope` executable. Kept apart from main.ts so that tests can import main() without
// starting a command.
import { main } from './main';
import { processIo } from './io';

// Writes to a pipe queue in memory while its reader lags, and a command writes its report in one
// go: a report of millions of waits would be held whole. Block on them instead, as Node does for
// files and terminals.
for (const stream of [process.stdout, process.stderr])
  (stream as { _handle?: { setBlocking?: (on: boolean) => void } })._handle?.setBlocking?.(true);

main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
