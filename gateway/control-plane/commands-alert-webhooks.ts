/**
 * Alert webhook commands: create, update and remove the webhooks budget alerts are delivered to.
 * Each webhook signs its deliveries with a secret in the Standard Webhooks form — `whsec_` and the
 * base64 of 24 to 64 random bytes (https://www.standardwebhooks.com/, "Signature scheme") —
 * generated here (32 bytes) unless given, returned once by create, and published only encrypted
 * under the master key, like channel credentials (credential-cipher.ts). Nothing is written here.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AlertWebhookSet } from '../../schemas/control-plane/control-plane-events.ts';
import type { AlertWebhookRecord, ControlPlaneView } from './control-plane-view.ts';
import { encryptCredential } from './credential-cipher.ts';
import {
  eventHeader,
  fail,
  nameField,
  newEntityId,
  parseInput,
  requireSomeField,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';

/** Prefix of a webhook signing secret (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes of a generated signing secret. */
export const WEBHOOK_SECRET_BYTES = 32;

/** Whether `secret` is `whsec_` + base64 of 24 to 64 bytes. */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** A fresh signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

const webhookFields = {
  name: nameField,
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  format: z.enum(['json', 'slack'], { error: "must be 'json' or 'slack'" }),
  enabled: z.boolean({ error: 'must be true or false' }),
};

/**
 * Body of `createAlertWebhook`: `{ name, url (http or https), format?: 'json' | 'slack' (default
 * json), secret? (whsec_ + base64 of 24–64 bytes; default: generated), enabled? (default true) }`.
 */
export const createAlertWebhookInput = z
  .object({
    ...webhookFields,
    format: webhookFields.format.default('json'),
    enabled: webhookFields.enabled.default(true),
    secret: z
      .string({ error: 'must be a string' })
      .refine(isWebhookSecret, `must be ${WEBHOOK_SECRET_PREFIX} followed by the base64 of 24 to 64 bytes`)
      .optional(),
  })
  .strict();

/** Body of `updateAlertWebhook`: any of name, url, format, enabled (the secret stays). */
export const updateAlertWebhookInput = z.object(webhookFields).partial().strict();

/** Result of creating a webhook: its id and its signing secret, shown only this once. */
export interface CreatedAlertWebhook {
  readonly webhookId: string;
  readonly secret: string;
}

/**
 * Creates an alert webhook with a fresh id (`whk_…`); the secret is encrypted under the master key.
 * @returns one AlertWebhookSet event; result `{ webhookId, secret }` (the secret in clear: show once).
 * @throws CommandError 400 bad input (a URL not http(s), an unknown format, a malformed secret).
 */
export function createAlertWebhook(
  _view: ControlPlaneView,
  input: unknown,
  ctx: CommandContext,
): CommandResult<CreatedAlertWebhook> {
  const { secret: given, ...settings } = parseInput(createAlertWebhookInput, input);
  const secret = given ?? newWebhookSecret();
  const webhookId = newEntityId('whk_');
  const event: AlertWebhookSet = {
    ...eventHeader(ctx),
    webhookId,
    ...settings,
    secretCiphertext: encryptCredential(ctx.secrets.masterKey, secret),
  };
  return { events: [{ type: 'AlertWebhookSet', event }], result: { webhookId, secret } };
}

/**
 * Updates a webhook: the given fields replace the current ones; the secret is kept.
 * @returns one AlertWebhookSet event; result `{ webhookId }`.
 * @throws CommandError 404 unknown webhook (field `id`), 400 bad input or an empty body.
 */
export function updateAlertWebhook(
  view: ControlPlaneView,
  webhookId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ webhookId: string }> {
  const current = requireAlertWebhook(view, webhookId);
  const body = parseInput(updateAlertWebhookInput, input);
  requireSomeField(body);
  const event: AlertWebhookSet = {
    ...eventHeader(ctx),
    webhookId,
    name: body.name ?? current.name,
    url: body.url ?? current.url,
    format: body.format ?? current.format,
    secretCiphertext: current.secretCiphertext,
    enabled: body.enabled ?? current.enabled,
  };
  return { events: [{ type: 'AlertWebhookSet', event }], result: { webhookId } };
}

/**
 * Removes webhook `webhookId`: no alert is delivered to it any more.
 * @returns one AlertWebhookRemoved event; result `{ webhookId }`.
 * @throws CommandError 404 unknown webhook (field `id`).
 */
export function removeAlertWebhook(
  view: ControlPlaneView,
  webhookId: string,
  ctx: CommandContext,
): CommandResult<{ webhookId: string }> {
  requireAlertWebhook(view, webhookId);
  return {
    events: [{ type: 'AlertWebhookRemoved', event: { ...eventHeader(ctx), webhookId } }],
    result: { webhookId },
  };
}

/** The webhook `webhookId`. @throws CommandError 404 `alert webhook '<id>' not found` (field `id`). */
export function requireAlertWebhook(view: ControlPlaneView, webhookId: string): AlertWebhookRecord {
  return view.alertWebhook(webhookId) ?? fail(404, `alert webhook '${webhookId}' not found`, 'id');
}
