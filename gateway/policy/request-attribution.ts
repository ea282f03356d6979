/**
 * Who a request is spent for, beyond the key that pays: its team, the caller's end user and its
 * tags. Computed once per request after decoding, carried into the traffic events and from there
 * into `consumption_log`, `billing_lines` and the spend tables per team, end user and tag.
 *
 * - `teamId`: the key's team (null for a key without one).
 * - `endUserId`: the first source found in the configured precedence (config
 *   `attribution.endUserFrom`, default header `x-tollgate-end-user`, OpenAI `safety_identifier`,
 *   OpenAI `user`, Anthropic `metadata.user_id`); at most MAX_END_USER_ID_LENGTH characters.
 * - `tags`: `name=value` strings — the team's default tags, then the key's, then the
 *   `x-tollgate-tags: name=value,name2=value2` header; a later value of a name replaces an
 *   earlier one (in the earlier one's place). At most MAX_REQUEST_TAGS tags; a name is 1 to
 *   MAX_TAG_NAME_LENGTH of `A-Z a-z 0-9 _ . -`, a value 1 to MAX_TAG_VALUE_LENGTH printable
 *   characters without `,` and `=`.
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { DEFAULT_END_USER_FROM, type EndUserSource } from '../config/config-schema.ts';
import type { KeyRecord, TeamRecord } from '../../schemas/control-plane/control-plane-records.ts';

/** The header naming the caller's end user, in any client format. */
export const END_USER_HEADER = 'x-tollgate-end-user';

/** The header carrying a request's own tags: `name=value` pairs separated by commas. */
export const TAGS_HEADER = 'x-tollgate-tags';

/** Most tags one request carries, team and key defaults included. */
export const MAX_REQUEST_TAGS = 16;

/** Longest tag name, characters. */
export const MAX_TAG_NAME_LENGTH = 64;

/** Longest tag value, characters. */
export const MAX_TAG_VALUE_LENGTH = 128;

/** Longest end-user id, characters. */
export const MAX_END_USER_ID_LENGTH = 256;

/** A request's attribution. `tags` are `name=value` strings, one per name, in merge order. */
export interface RequestAttribution {
  readonly teamId: string | null;
  readonly endUserId: string | null;
  readonly tags: ReadonlyArray<string>;
}

/** The attribution of a request with no team, no end user and no tags (shared, frozen). */
export const NO_ATTRIBUTION: RequestAttribution = Object.freeze({
  teamId: null,
  endUserId: null,
  tags: Object.freeze([]),
});

/** Request headers as Node gives them (lower-case names; a repeated header joined with `, `). */
export type AttributionHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;

/** The key's part of attribution: its team and default tags. */
export type AttributedKey = Pick<KeyRecord, 'teamId' | 'tags'>;

/** The request's part of attribution: its format and the end-user fields its body carried. */
export type AttributedRequest = Pick<CanonicalRequest, 'clientFormat' | 'user' | 'safetyIdentifier'>;

/** How a node attributes requests: the same for every request. */
export interface AttributionSettings {
  /** Where the end-user id is read, first found wins; none: DEFAULT_END_USER_FROM. */
  readonly endUserFrom?: ReadonlyArray<EndUserSource>;
  /** Looks a team up for its default tags (undefined: unknown team, no team tags); none: no team tags. */
  readonly teamOf?: (teamId: string) => Pick<TeamRecord, 'tags'> | undefined;
}

/** The settings of a node that configured none: the default precedence, no team tags. */
const DEFAULT_SETTINGS: AttributionSettings = Object.freeze({});

const TAG_NAME = /^[A-Za-z0-9_.-]+$/;
// Printable: no control characters (Unicode category Cc), and neither separator.
const TAG_VALUE = /^[^\p{Cc},=]+$/u;

/**
 * The attribution of one request (module doc). Returns NO_ATTRIBUTION, allocating nothing, when
 * the key has no team and no tags and the request names no end user and sends no tags.
 *
 * @throws GatewayError `invalid-request` (400) naming the offending header or field: a tag of
 *   `x-tollgate-tags` without `=`, with a bad name or value, or more than MAX_REQUEST_TAGS tags in
 *   all; an end-user id longer than MAX_END_USER_ID_LENGTH.
 */
export function attributeRequest(
  key: AttributedKey,
  request: AttributedRequest,
  headers: AttributionHeaders,
  settings: AttributionSettings = DEFAULT_SETTINGS,
): RequestAttribution {
  const teamId = key.teamId;
  const endUserId = endUserOf(request, headers, settings.endUserFrom ?? DEFAULT_END_USER_FROM);
  const tagsHeader = headerText(headers[TAGS_HEADER]);
  const teamTags = teamId === null ? undefined : settings.teamOf?.(teamId)?.tags;
  const hasTags = (teamTags?.length ?? 0) > 0 || key.tags.length > 0 || tagsHeader !== undefined;
  if (teamId === null && endUserId === null && !hasTags) return NO_ATTRIBUTION;
  return {
    teamId,
    endUserId,
    tags: hasTags ? mergeTags(teamTags ?? [], key.tags, tagsHeader) : NO_ATTRIBUTION.tags,
  };
}

/** A header's text, trimmed; undefined when absent or blank. */
function headerText(value: string | ReadonlyArray<string> | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === 'string' ? value : value.join(', ')).trim();
  return text === '' ? undefined : text;
}

/** The first end-user id found in the precedence, checked for length; null when none. */
function endUserOf(
  request: AttributedRequest,
  headers: AttributionHeaders,
  sources: ReadonlyArray<EndUserSource>,
): string | null {
  for (const source of sources) {
    const id = endUserFrom(source, request, headers);
    if (id === undefined || id === '') continue;
    if (id.length > MAX_END_USER_ID_LENGTH)
      throw new GatewayError(
        'invalid-request',
        `${source === 'header' ? END_USER_HEADER : source}: the end-user id is ${id.length} characters long; at most ${MAX_END_USER_ID_LENGTH} are allowed`,
        { param: source === 'header' ? END_USER_HEADER : source },
      );
    return id;
  }
  return null;
}

/** The end-user id `source` holds for this request, if any. `user` is OpenAI's; Anthropic's `metadata.user_id` decodes into the same canonical field. */
function endUserFrom(
  source: EndUserSource,
  request: AttributedRequest,
  headers: AttributionHeaders,
): string | undefined {
  switch (source) {
    case 'header':
      return headerText(headers[END_USER_HEADER]);
    case 'safety_identifier':
      return request.safetyIdentifier;
    case 'user':
      return request.clientFormat === 'anthropic-messages' ? undefined : request.user;
    case 'metadata.user_id':
      return request.clientFormat === 'anthropic-messages' ? request.user : undefined;
  }
}

/** Team tags, key tags, then the header's, one per name (a later value replaces an earlier one in place). */
function mergeTags(
  teamTags: ReadonlyArray<string>,
  keyTags: ReadonlyArray<string>,
  header: string | undefined,
): ReadonlyArray<string> {
  const byName = new Map<string, string>();
  for (const tag of teamTags) byName.set(tagName(tag), tag);
  for (const tag of keyTags) byName.set(tagName(tag), tag);
  if (header !== undefined) {
    for (const entry of header.split(',')) {
      const tag = entry.trim();
      if (tag === '') continue;
      byName.set(checkedHeaderTagName(tag), tag);
    }
  }
  if (byName.size > MAX_REQUEST_TAGS)
    throw new GatewayError(
      'invalid-request',
      `${TAGS_HEADER}: the request would carry ${byName.size} tags with the team's and key's defaults; at most ${MAX_REQUEST_TAGS} are allowed`,
      { param: TAGS_HEADER },
    );
  return [...byName.values()];
}

/** The name of a stored `name=value` tag (team or key defaults, checked when they were set). */
function tagName(tag: string): string {
  const at = tag.indexOf('=');
  return at < 0 ? tag : tag.slice(0, at);
}

/** The name of one `name=value` tag of the header, after checking name and value. */
function checkedHeaderTagName(tag: string): string {
  const at = tag.indexOf('=');
  const problem = tagProblem(tag, at);
  if (problem !== undefined)
    throw new GatewayError('invalid-request', `${TAGS_HEADER}: the tag '${shown(tag)}' ${problem}`, {
      param: TAGS_HEADER,
    });
  return tag.slice(0, at);
}

/** A tag as an error message quotes it: its first 100 characters, then `…` when longer. */
function shown(tag: string): string {
  return tag.length > 100 ? `${tag.slice(0, 100)}…` : tag;
}

/** Why `tag` (with its first `=` at `at`) is not a valid tag, or undefined when it is. */
function tagProblem(tag: string, at: number): string | undefined {
  if (at < 0) return 'is not of the form name=value';
  const name = tag.slice(0, at);
  const value = tag.slice(at + 1);
  if (name.length === 0 || name.length > MAX_TAG_NAME_LENGTH || !TAG_NAME.test(name))
    return `has an invalid name: use 1 to ${MAX_TAG_NAME_LENGTH} characters of A-Z a-z 0-9 _ . -`;
  if (value.length === 0 || value.length > MAX_TAG_VALUE_LENGTH || !TAG_VALUE.test(value))
    return `has an invalid value: use 1 to ${MAX_TAG_VALUE_LENGTH} printable characters without ',' or '='`;
  return undefined;
}
