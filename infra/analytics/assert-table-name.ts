/**
 * Table names are the one piece of SQL the analytics adapters splice in unescaped (INSERT INTO
 * <table>), so they are checked against a plain-identifier pattern first.
 */

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * Accepts `table` or `database.table` made of letters, digits and underscores.
 * @throws Error naming the rejected value otherwise.
 */
export function assertTableName(table: string): void {
  if (!TABLE_NAME.test(table)) throw new Error(`invalid table name: ${JSON.stringify(table)}`);
}
