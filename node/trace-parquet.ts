// Writes the Parquet form of a trace (core/trace/parquet.ts): `x.parquet` is a directory holding one
// file per table, each written atomically.
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { traceParquetFiles } from '../core/trace/parquet';
import type { Trace } from '../core/trace/model';
import { writeFileAtomic, WriteError } from './atomic-write';

export async function writeTraceParquet(trace: Trace, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((e: NodeJS.ErrnoException) => {
    throw new WriteError(
      `${dir}: cannot create the directory (${e.code}); choose a path you can write to`,
      e.code ?? '',
    );
  });
  for (const { file, chunks } of traceParquetFiles(trace, basename(dir).replace(/\.parquet$/i, '')))
    await writeFileAtomic(join(dir, file), chunks);
}
