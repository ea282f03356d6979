/**
 * The input fields keys and teams share beyond commands-common.ts: daily limits, per-model
 * limits and default tags, and the form of a tag (`name=value`) and of an end-user id, which
 * budgets on a tag or an end user name. The tag rules are the ones requests' `x-tollgate-tags`
 * header follows (gateway/policy/request-attribution.ts): a name of 1–64 `A-Z a-z 0-9 _ . -`, a
 * value of 1–128 printable characters without `,` or `=`.
 */
import { z } from 'zod';
import type { ModelLimit } from '../../schemas/control-plane/control-plane-records.ts';
import { limitField } from './commands-common.ts';

/** Longest tag name, characters. */
export const MAX_TAG_NAME_LENGTH = 64;

/** Longest tag value, characters. */
export const MAX_TAG_VALUE_LENGTH = 128;

/** Most default tags a key or a team carries (a request carries at most 16 in all). */
export const MAX_DEFAULT_TAGS = 16;

/** Longest end-user id, characters. */
export const MAX_END_USER_ID_LENGTH = 256;

const TAG_NAME = /^[A-Za-z0-9_.-]+$/;
// Printable: no control characters (Unicode category Cc), and neither separator.
const TAG_VALUE = /^[^\p{Cc},=]+$/u;

/**
 * What is wrong with a `name=value` tag, or undefined when it is well formed.
 * @returns e.g. `'env' is not name=value`, `the name must be 1–64 of A-Z a-z 0-9 _ . -`
 */
export function tagProblem(tag: string): string | undefined {
  const at = tag.indexOf('=');
  if (at < 0) return `'${tag}' is not name=value`;
  const name = tag.slice(0, at);
  const value = tag.slice(at + 1);
  if (name.length === 0 || name.length > MAX_TAG_NAME_LENGTH || !TAG_NAME.test(name))
    return `the name of '${tag}' must be 1–${MAX_TAG_NAME_LENGTH} of A-Z a-z 0-9 _ . -`;
  if (value.length === 0 || value.length > MAX_TAG_VALUE_LENGTH || !TAG_VALUE.test(value))
    return `the value of '${tag}' must be 1–${MAX_TAG_VALUE_LENGTH} printable characters without ',' or '='`;
  return undefined;
}

/** One `name=value` tag (tagProblem's rules). */
export const tagField = z.string({ error: 'must be a name=value string' }).superRefine((tag, ctx) => {
  const problem = tagProblem(tag);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** Default tags of a key or a team: at most 16 `name=value` strings, each name once. */
export const tagsField = z
  .array(tagField, { error: 'must be an array of name=value strings' })
  .max(MAX_DEFAULT_TAGS, `must have at most ${MAX_DEFAULT_TAGS} tags`)
  .superRefine((tags, ctx) => {
    const names = tags.map((tag) => tag.slice(0, tag.indexOf('=')));
    const repeated = names.findIndex((name, i) => names.indexOf(name) !== i);
    if (repeated >= 0)
      ctx.addIssue({ code: 'custom', message: `tag name '${names[repeated]}' appears twice`, path: [repeated] });
  });

/** Limits of one model: `{ model, rpm?, tpm?, rpd?, tpd? }` (positive integers or null = unlimited). */
export const modelLimitField = z
  .object(
    {
      model: z.string({ error: 'must be a model name string' }).min(1, 'must not be empty'),
      rpm: limitField.default(null),
      tpm: limitField.default(null),
      rpd: limitField.default(null),
      tpd: limitField.default(null),
    },
    { error: 'must be an object { model, rpm?, tpm?, rpd?, tpd? }' },
  )
  .strict();

/** Per-model limits: one entry per model at most. */
export const modelLimitsField = z
  .array(modelLimitField, { error: 'must be an array of { model, rpm?, tpm?, rpd?, tpd? }' })
  .superRefine((limits, ctx) => {
    const models = limits.map((limit) => limit.model);
    const repeated = models.findIndex((model, i) => models.indexOf(model) !== i);
    if (repeated >= 0)
      ctx.addIssue({
        code: 'custom',
        message: `model '${models[repeated]}' appears twice`,
        path: [repeated, 'model'],
      });
  })
  .transform((limits): ModelLimit[] => limits);

/** An id a body uses to name another entity (a team, a user): a non-empty string, or null for none. */
export const entityRefField = z
  .string({ error: 'must be an id string or null' })
  .min(1, 'must not be empty')
  .nullable();
