import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import {
  attributeRequest,
  MAX_REQUEST_TAGS,
  NO_ATTRIBUTION,
  type AttributedKey,
  type AttributedRequest,
  type AttributionHeaders,
} from '../../../gateway/policy/request-attribution.ts';

const PLAIN_KEY: AttributedKey = { teamId: null, tags: [] };
const TEAM_KEY: AttributedKey = { teamId: 'team_0123456789abcdef', tags: ['env=prod', 'owner=ci'] };
const TEAMS = new Map([['team_0123456789abcdef', { tags: ['env=staging', 'cost-center=42'] }]]);
const teamOf = (teamId: string): { tags: ReadonlyArray<string> } | undefined => TEAMS.get(teamId);
const CHAT: AttributedRequest = { clientFormat: 'openai-chat' };

/** The GatewayError `run` throws (fails the test when it throws none). */
function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('attributeRequest', () => {
  it('returns the shared empty attribution when nothing names a team, an end user or a tag', () => {
    expect(attributeRequest(PLAIN_KEY, CHAT, {})).toBe(NO_ATTRIBUTION);
    expect(attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': '  ', 'x-tollgate-end-user': '' })).toBe(
      NO_ATTRIBUTION,
    );
    expect(Object.isFrozen(NO_ATTRIBUTION) && Object.isFrozen(NO_ATTRIBUTION.tags)).toBe(true);
  });

  it("takes the key's team, and the team's, the key's and the header's tags in that order, later names replacing earlier ones in place", () => {
    const attribution = attributeRequest(
      TEAM_KEY,
      CHAT,
      { 'x-tollgate-tags': 'feature=search, env=canary,feature=chat' },
      { teamOf },
    );
    expect(attribution).toEqual({
      teamId: 'team_0123456789abcdef',
      endUserId: null,
      tags: ['env=canary', 'cost-center=42', 'owner=ci', 'feature=chat'],
    });
  });

  it('adds no team tags for a team the lookup does not know, or without a lookup', () => {
    expect(attributeRequest(TEAM_KEY, CHAT, {}).tags).toEqual(['env=prod', 'owner=ci']);
    expect(attributeRequest({ ...TEAM_KEY, teamId: 'team_ffffffffffffffff' }, CHAT, {}, { teamOf }).tags).toEqual([
      'env=prod',
      'owner=ci',
    ]);
    expect(attributeRequest({ teamId: 'team_ffffffffffffffff', tags: [] }, CHAT, {}, { teamOf })).toEqual({
      teamId: 'team_ffffffffffffffff',
      endUserId: null,
      tags: [],
    });
  });

  describe('end user', () => {
    const everything: AttributionHeaders = { 'x-tollgate-end-user': ' from-header ' };
    const openai: AttributedRequest = { clientFormat: 'openai-responses', user: 'from-user', safetyIdentifier: 'sid' };
    const anthropic: AttributedRequest = { clientFormat: 'anthropic-messages', user: 'from-metadata' };

    it('reads the header, then safety_identifier, then user, then metadata.user_id by default', () => {
      expect(attributeRequest(PLAIN_KEY, openai, everything).endUserId).toBe('from-header');
      expect(attributeRequest(PLAIN_KEY, openai, {}).endUserId).toBe('sid');
      expect(attributeRequest(PLAIN_KEY, { ...openai, safetyIdentifier: undefined }, {}).endUserId).toBe('from-user');
      expect(attributeRequest(PLAIN_KEY, anthropic, {}).endUserId).toBe('from-metadata');
      expect(attributeRequest(PLAIN_KEY, anthropic, everything).endUserId).toBe('from-header');
      expect(attributeRequest(PLAIN_KEY, { clientFormat: 'gemini' }, everything).endUserId).toBe('from-header');
    });

    it('follows the configured precedence, and reads only the sources it names', () => {
      const bodyFirst = { endUserFrom: ['user', 'metadata.user_id', 'header'] as const };
      expect(attributeRequest(PLAIN_KEY, openai, everything, bodyFirst).endUserId).toBe('from-user');
      expect(attributeRequest(PLAIN_KEY, anthropic, everything, bodyFirst).endUserId).toBe('from-metadata');
      expect(attributeRequest(PLAIN_KEY, { clientFormat: 'gemini' }, everything, bodyFirst).endUserId).toBe(
        'from-header',
      );
      // `user` is OpenAI's field: an Anthropic metadata.user_id is not read as it, nor the reverse.
      expect(attributeRequest(PLAIN_KEY, anthropic, {}, { endUserFrom: ['user'] }).endUserId).toBeNull();
      expect(attributeRequest(PLAIN_KEY, openai, {}, { endUserFrom: ['metadata.user_id'] }).endUserId).toBeNull();
      expect(attributeRequest(PLAIN_KEY, openai, everything, { endUserFrom: [] })).toBe(NO_ATTRIBUTION);
    });

    it('accepts 256 characters and refuses 257, naming the source', () => {
      const longest = 'u'.repeat(256);
      expect(attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-end-user': longest }).endUserId).toBe(longest);
      const header = refusal(() => attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-end-user': `${longest}x` }));
      expect(header).toMatchObject({ kind: 'invalid-request', status: 400, param: 'x-tollgate-end-user' });
      expect(header.message).toBe(
        'x-tollgate-end-user: the end-user id is 257 characters long; at most 256 are allowed',
      );
      const body = refusal(() => attributeRequest(PLAIN_KEY, { ...openai, safetyIdentifier: `${longest}x` }, {}));
      expect(body).toMatchObject({ status: 400, param: 'safety_identifier' });
      expect(body.message).toMatch(/^safety_identifier: /);
    });
  });

  describe('tags', () => {
    it.each([
      ['no-equals', "x-tollgate-tags: the tag 'no-equals' is not of the form name=value"],
      ['=value', "x-tollgate-tags: the tag '=value' has an invalid name: use 1 to 64 characters of A-Z a-z 0-9 _ . -"],
      ['bad name=1', "x-tollgate-tags: the tag 'bad name=1' has an invalid name"],
      [`${'n'.repeat(65)}=1`, 'has an invalid name'],
      ['feature=', "x-tollgate-tags: the tag 'feature=' has an invalid value: use 1 to 128 printable characters"],
      ['feature=a=b', "the tag 'feature=a=b' has an invalid value"],
      ['feature=tab\there', 'has an invalid value'],
      [`feature=${'v'.repeat(129)}`, 'has an invalid value'],
    ])('refuses %j with a 400 naming the header and the tag', (tag, message) => {
      const error = refusal(() => attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': `ok=1,${tag}` }));
      expect(error).toMatchObject({ kind: 'invalid-request', status: 400, param: 'x-tollgate-tags' });
      expect(error.message).toContain(message);
    });

    it('accepts the longest name and value, spaces and non-ASCII printable characters in a value', () => {
      const tag = `${'n'.repeat(64)}=${'v'.repeat(128)}`;
      expect(attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': `${tag}, a.b-c_d=x y é` }).tags).toEqual([
        tag,
        'a.b-c_d=x y é',
      ]);
    });

    it('quotes at most 100 characters of a bad tag', () => {
      const error = refusal(() => attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': 'x'.repeat(5000) }));
      expect(error.message).toBe(`x-tollgate-tags: the tag '${'x'.repeat(100)}…' is not of the form name=value`);
    });

    it(`allows ${MAX_REQUEST_TAGS} tags in all, team and key defaults included, and refuses one more`, () => {
      const header = (count: number): string => Array.from({ length: count }, (_, i) => `t${i}=v`).join(',');
      expect(attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': header(16) }).tags).toHaveLength(16);
      // A name repeated counts once; the team's and key's defaults share env, so they count 3.
      expect(attributeRequest(PLAIN_KEY, CHAT, { 'x-tollgate-tags': `${header(16)},t0=w` }).tags).toHaveLength(16);
      const error = refusal(() =>
        attributeRequest(TEAM_KEY, CHAT, { 'x-tollgate-tags': header(16 - 3 + 1) }, { teamOf }),
      );
      expect(error).toMatchObject({ status: 400, param: 'x-tollgate-tags' });
      expect(error.message).toBe(
        "x-tollgate-tags: the request would carry 17 tags with the team's and key's defaults; at most 16 are allowed",
      );
    });
  });
});
