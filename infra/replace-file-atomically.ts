/**
 * Replacing a small file so that a crash leaves either the old content or the new, never a torn
 * mix: write a temporary file beside it, flush its data to disk, then rename it over the target
 * (rename(2) replaces the target atomically within one file system,
 * https://man7.org/linux/man-pages/man2/rename.2.html).
 */
import { open, rename } from 'node:fs/promises';

/**
 * Writes `data` to `<path>.tmp`, fdatasyncs it and renames it to `path`. The folder must exist.
 * @throws the I/O Error of any step; `path` then keeps its previous content (a `<path>.tmp` may be left behind)
 */
export async function replaceFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}
