// Gzipped traces: the text they expand to is bounded, and a broken stream is an error that names the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { importTraceBytes, MIN_DECOMPRESSED } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';

const fixture = () => readFileSync(repoPath('test/fixtures/torch/seed_synchronize.json'));

test('a gzip stream with a wrong checksum or cut short is named, with what is wrong', async () => {
  const gz = gzipSync(fixture());
  const bad = Uint8Array.from(gz);
  bad[bad.length - 6] ^= 0xff; // the CRC-32 in the trailer
  await assert.rejects(importTraceBytes(bad, 'bad.json.gz'), {
    name: 'ImportError',
    message: 'bad.json.gz: not a valid gzip stream (incorrect data check); a .gz trace is one complete gzip file',
  });
  await assert.rejects(importTraceBytes(gz.subarray(0, gz.length - 100), 'cut.json.gz'), {
    name: 'ImportError',
    message: 'cut.json.gz: not a valid gzip stream (unexpected end of file); a .gz trace is one complete gzip file',
  });
});

test('a small gzip file that expands past its bound stops with the file and the bound', async () => {
  // Some 70 KB of gzip that expands to 68 MiB of white space inside the events array.
  const body = Buffer.alloc(MIN_DECOMPRESSED + (4 << 20), 0x20);
  body.write('{"traceEvents":[');
  body.write(']}', body.length - 2);
  const gz = gzipSync(body);
  assert.ok(gz.length * 256 < MIN_DECOMPRESSED, `${gz.length} bytes of gzip`);
  await assert.rejects(importTraceBytes(gz, 'bomb.json.gz'), {
    name: 'ImportError',
    message:
      'bomb.json.gz: decompressed size over 64 MiB; a gzipped trace may expand to 256 times its size ' +
      '(at least 64 MiB, at most 16 GiB)',
  });
});
