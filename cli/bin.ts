// The `syncscope` executable. Kept apart from main.ts so that tests can import main() without
// starting a command.
import { main } from './main';
import { processIo } from './io';

main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
