/**
 * The generated Avro modules (schemas/<family>/avro-files.generated.ts) hold exactly what the
 * `.avsc` files hold: compared as data, so formatting the generated source does not matter. When
 * this fails, run `npx tsx infra/build/generate-avro-modules.ts` and commit its output.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AVRO_FAMILY_DIRS, avscConstName, readAvroFamily } from '../../../infra/build/generate-avro-modules.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(AVRO_FAMILY_DIRS)('generated Avro module of %s', (dir) => {
  it('holds every current and history .avsc file as it is on disk', async () => {
    const family = readAvroFamily(join(ROOT, dir));
    const generated = (await import(join(ROOT, dir, 'avro-files.generated.ts'))) as Record<string, unknown>;
    const currentNames = family.current.map(({ file }) => avscConstName(file));
    expect(
      Object.keys(generated)
        .filter((name) => name !== 'AVRO_HISTORY_FILES')
        .sort(),
    ).toEqual([...currentNames].sort());
    for (const { file, schema } of family.current) expect(generated[avscConstName(file)], file).toEqual(schema);
    expect(generated.AVRO_HISTORY_FILES).toEqual(family.history);
  });
});
