/**
 * Image and file sources as OpenAI clients send them (Responses `input_image`/`input_file`,
 * Chat `image_url`/`file`), mapped to canonical ImagePart/FilePart sources. `data:` URLs are
 * unpacked into base64 so adapters need not parse them.
 */
import type { FilePart, ImagePart } from '../../canonical/request.ts';

const DATA_URL = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s;

/** Splits `data:<media>;base64,<data>`; undefined for anything else (plain URLs, non-base64 data URLs). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1] ?? 'application/octet-stream', data: match[3] ?? '' };
}

/** An image URL (http(s) or data URL) as an ImagePart. */
export function imagePartFromUrl(url: string): ImagePart {
  const inline = parseDataUrl(url);
  return {
    type: 'image',
    source: inline ? { kind: 'base64', mediaType: inline.mediaType, data: inline.data } : { kind: 'url', url },
  };
}

const MEDIA_TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

function guessMediaType(filename: string | undefined): string {
  const extension = filename?.split('.').pop()?.toLowerCase() ?? '';
  return MEDIA_TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}

/** Fields of an OpenAI file reference (all optional on the wire; one of them must be set). */
export interface OpenAIFileFields {
  readonly file_id?: string | null | undefined;
  readonly file_data?: string | null | undefined;
  readonly file_url?: string | null | undefined;
  readonly filename?: string | null | undefined;
}

/**
 * A FilePart from `file_id`, `file_data` (data URL, or bare base64 whose media type is guessed from
 * `filename`) or `file_url`; undefined when none is set.
 */
export function filePartFromFields(fields: OpenAIFileFields): FilePart | undefined {
  const filename = fields.filename ?? undefined;
  if (fields.file_data) {
    const inline = parseDataUrl(fields.file_data);
    const mediaType = inline?.mediaType ?? guessMediaType(filename);
    const data = inline?.data ?? fields.file_data;
    return {
      type: 'file',
      source:
        filename === undefined ? { kind: 'base64', mediaType, data } : { kind: 'base64', mediaType, data, filename },
    };
  }
  if (fields.file_id) return { type: 'file', source: { kind: 'file-id', fileId: fields.file_id } };
  if (fields.file_url) return { type: 'file', source: { kind: 'url', url: fields.file_url } };
  return undefined;
}
