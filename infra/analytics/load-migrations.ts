/**
 * Reads the versioned ClickHouse migrations: `schemas/analytics/migrations/NNN-name.sql` (the
 * DDL is part of the contract; this reader runs in the processes), applied in NNN order.
 * A file holds one or more statements, each ended by a `;` at the end of a line; `--` comment
 * lines are dropped. A header line `-- requires: 21.1` marks a migration that needs at least
 * that engine version (it is skipped on older servers, e.g. 18.16, and applied once they are
 * upgraded).
 */
import { readdir, readFile } from 'node:fs/promises';

/** One migration file, parsed. */
export interface Migration {
  /** NNN from the file name, e.g. 3 for `003-spend-views.sql`. */
  readonly version: number;
  /** The file name without `.sql`, e.g. `003-spend-views`. */
  readonly name: string;
  /** Minimum engine version (`major.minor[.patch…]`), or null when any version will do. */
  readonly requires: string | null;
  /** The statements, in order, without their trailing `;`. */
  readonly statements: ReadonlyArray<string>;
}

const FILE_NAME = /^(\d{3})-([a-z0-9][a-z0-9-]*)\.sql$/;
const REQUIRES = /^--\s*requires:\s*(\d+(?:\.\d+)*)\s*$/m;

/** The bundled migrations directory (the same relative path from the compiled `dist/` tree). */
export const MIGRATIONS_DIR = new URL('../../schemas/analytics/migrations/', import.meta.url);

/**
 * Parses one migration file.
 * @throws Error when the name is not `NNN-name.sql` or the file holds no statement.
 */
export function parseMigration(fileName: string, text: string): Migration {
  const match = FILE_NAME.exec(fileName);
  if (!match) throw new Error(`migration file name must be NNN-name.sql: ${fileName}`);
  const body = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  const statements = body
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
  if (statements.length === 0) throw new Error(`migration ${fileName} holds no statement`);
  return {
    version: Number(match[1]),
    name: fileName.slice(0, -'.sql'.length),
    requires: REQUIRES.exec(text)?.[1] ?? null,
    statements,
  };
}

/**
 * Loads every `NNN-name.sql` in `dir` (default: the bundled migrations), sorted by version.
 * @throws Error on a malformed file or two files with the same version.
 */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const migrations = await Promise.all(
    files.map(async (file) => parseMigration(file, await readFile(new URL(file, dir), 'utf8'))),
  );
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version)
      throw new Error(
        `two migrations with version ${migrations[i]?.version}: ${migrations[i - 1]?.name}, ${migrations[i]?.name}`,
      );
  }
  return migrations;
}
