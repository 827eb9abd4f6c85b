// Writes the Parquet form of a trace (core/trace/parquet.ts): `x.parquet` is a folder holding one
// file per table, written as a whole (atomic-folder.ts): a reader sees the old tables or all the
// new ones, each row carrying the write's id.
import { basename } from 'node:path';
import { PARQUET_TABLES, traceParquetFiles } from '../core/trace/parquet';
import type { Trace } from '../core/trace/model';
import { stageFolder, type FolderKind } from './atomic-folder';
import type { Staged } from './atomic-write';

const TABLE_FILE = new RegExp(`^(${PARQUET_TABLES.join('|')})\\.parquet$`);
// Earlier versions wrote each table through a temp file of its own inside the folder.
const TABLE_TEMP = new RegExp(`^\\.(${PARQUET_TABLES.join('|')})\\.parquet\\.\\d+\\.[0-9a-f]{12}\\.tmp$`);

export const TRACE_PARQUET: FolderKind = {
  isOwnEntry: (name) => TABLE_FILE.test(name) || TABLE_TEMP.test(name),
  contents: "a trace's Parquet tables",
};

/** The tables of `trace` in a temporary folder beside `dir`, which the commit renames to `dir`. */
export const stageTraceParquet = (trace: Trace, dir: string, writeId: string): Promise<Staged> =>
  stageFolder(
    dir,
    traceParquetFiles(trace, { trace: basename(dir).replace(/\.parquet$/i, ''), writeId }),
    TRACE_PARQUET,
  );
