/**
 * Avro single-object encoding of control-plane events (the config topic `tollgate.config`):
 * `C3 01`, the 8-byte little-endian CRC-64-AVRO fingerprint of the writer schema, then the Avro
 * binary datum — the same framing and fingerprint code as the traffic events
 * (schemas/events/single-object-registry.ts). Encoding uses the current schemas
 * (control-avro-schemas.ts); decoding accepts the current and every historical version kept in
 * ./avro/history (as data: avro-files.generated.ts) and resolves it into the current TypeScript shape.
 *
 * Sync markers (records with an empty value, see config-follower.ts)
 * share the topic: check `isControlEventValue` before decoding.
 */
import {
  decodeSingleObject,
  encodeSingleObject,
  loadSchemaRegistry,
  type SchemaFamily,
  type SchemaHistoryFile,
  type SchemaRegistry,
} from '../events/single-object-registry.ts';
import { AVRO_HISTORY_FILES } from './avro-files.generated.ts';
import { CONTROL_EVENTS_NAMESPACE, CURRENT_CONTROL_SCHEMAS, type ControlEventType } from './control-avro-schemas.ts';
import type { ModelLimit } from './control-plane-records.ts';
import type {
  BudgetSet,
  ChannelMock,
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyUpdated,
  TeamCreated,
  TeamUpdated,
} from './control-plane-events.ts';

/** The control event family: namespace `tollgate.control`, schemas of control-avro-schemas.ts. */
export const CONTROL_SCHEMA_FAMILY: SchemaFamily<ControlEventType> = {
  label: 'control',
  namespace: CONTROL_EVENTS_NAMESPACE,
  schemas: CURRENT_CONTROL_SCHEMAS,
};

/**
 * Builds the registry of control schemas from the current ones and the history files (default: ./avro/history's).
 * @throws Error on a broken history file (see loadSchemaRegistry).
 */
export function controlSchemaRegistry(
  history: ReadonlyArray<SchemaHistoryFile> = AVRO_HISTORY_FILES,
): SchemaRegistry<ControlEventType> {
  return loadSchemaRegistry(CONTROL_SCHEMA_FAMILY, history);
}

/** Built when this module is imported (start-up): a broken history file fails the start. */
const registry = controlSchemaRegistry();

/**
 * Encodes a control event with its current schema as an Avro single-object message.
 * ChannelUpserted without `mock`, `deadlineMs`, `minStreamRate` or `cloud` encodes them as null and
 * without `headers` as `{}`, without `credentials` as `[]`; KeyCreated
 * and KeyUpdated without `teamId`, `rpd`, `tpd` as null, without `tags`, `modelLimits` as `[]`;
 * PriceSet without `cacheWrite1hPerMTok` as null.
 * @returns `C3 01` + 8-byte LE fingerprint + Avro binary body
 * @throws Error when the event does not fit its schema (e.g. a non-integer `rpm`, an unknown
 *   `role`, a missing string)
 */
export function encodeControlEvent(event: ControlEvent): Buffer {
  return encodeSingleObject(registry, event.type, datumOf(event));
}

/** The event with its optional fields filled with their schema defaults (ChannelUpserted, KeyCreated, KeyUpdated, PriceSet). */
function datumOf(event: ControlEvent): object {
  switch (event.type) {
    case 'ChannelUpserted':
      return {
        ...event.event,
        mock: event.event.mock ?? null,
        deadlineMs: event.event.deadlineMs ?? null,
        minStreamRate: event.event.minStreamRate ?? null,
        cloud: event.event.cloud ?? null,
        headers: event.event.headers ?? {},
        credentials: event.event.credentials ?? [],
      };
    case 'KeyCreated':
    case 'KeyUpdated':
      return {
        ...event.event,
        teamId: event.event.teamId ?? null,
        tags: event.event.tags ?? [],
        rpd: event.event.rpd ?? null,
        tpd: event.event.tpd ?? null,
        modelLimits: event.event.modelLimits ?? [],
      };
    case 'PriceSet':
      return { ...event.event, cacheWrite1hPerMTok: event.event.cacheWrite1hPerMTok ?? null };
    default:
      return event.event;
  }
}

/**
 * Decodes a single-object message written with any registered version of a control event
 * schema into the current shape (plain objects, arrays and maps; `null` for absent nullable values).
 * @throws Error `not an Avro single-object message …` (also for an empty value: a sync marker),
 *   `unknown writer schema fingerprint …`, or `cannot decode …` (see decodeSingleObject)
 */
export function decodeControlEvent(value: Buffer): ControlEvent {
  const { eventType, datum } = decodeSingleObject(registry, 'control', value);
  return toControlEvent(eventType, datum);
}

/** Whether a config-topic value holds an event (false for the empty value of a sync marker). */
export function isControlEventValue(value: Buffer): boolean {
  return value.length > 0;
}

/**
 * The Kafka key of a control event: the id of the entity it is about (userId, keyId, channelId,
 * priceId, teamId — a team member's change included —, budgetId or webhookId). The config topic
 * has one partition, so the key orders nothing by itself; it names the entity for tools and for a
 * future compacted copy of the topic. Admin tokens: their tokenId.
 */
export function controlEventKey(event: ControlEvent): string {
  switch (event.type) {
    case 'UserCreated':
    case 'UserUpdated':
    case 'UserCredentialsSet':
      return event.event.userId;
    case 'KeyCreated':
    case 'KeyUpdated':
    case 'KeyRevoked':
      return event.event.keyId;
    case 'ChannelUpserted':
    case 'ChannelRemoved':
      return event.event.channelId;
    case 'PriceSet':
      return event.event.priceId;
    case 'AdminTokenCreated':
    case 'AdminTokenRevoked':
      return event.event.tokenId;
    case 'TeamCreated':
    case 'TeamUpdated':
    case 'TeamMemberSet':
    case 'TeamMemberRemoved':
      return event.event.teamId;
    case 'BudgetSet':
    case 'BudgetRemoved':
      return event.event.budgetId;
    case 'AlertWebhookSet':
    case 'AlertWebhookRemoved':
      return event.event.webhookId;
  }
}

/** avsc decodes records into instances of generated classes; copy them into plain objects. */
function toControlEvent(eventType: ControlEventType, decoded: unknown): ControlEvent {
  const plain = { ...(decoded as Record<string, unknown>) };
  switch (eventType) {
    case 'KeyCreated':
    case 'KeyUpdated':
    case 'TeamCreated':
    case 'TeamUpdated': {
      const owner = decoded as Required<KeyCreated | KeyUpdated> | TeamCreated | TeamUpdated;
      return {
        type: eventType,
        event: {
          ...plain,
          models: owner.models === null ? null : [...owner.models],
          tags: [...owner.tags],
          modelLimits: owner.modelLimits.map((limit): ModelLimit => ({ ...limit })),
        },
      } as unknown as ControlEvent;
    }
    case 'BudgetSet':
      return {
        type: eventType,
        event: { ...plain, thresholds: [...(decoded as BudgetSet).thresholds] },
      } as unknown as ControlEvent;
    case 'ChannelUpserted': {
      const channel = decoded as Required<ChannelUpserted>;
      const mock: ChannelMock | null = channel.mock === null ? null : { ...channel.mock };
      const minStreamRate = channel.minStreamRate === null ? null : { ...channel.minStreamRate };
      const cloud = channel.cloud === null ? null : { ...channel.cloud };
      return {
        type: eventType,
        event: {
          ...channel,
          models: [...channel.models],
          modelMap: { ...channel.modelMap },
          mock,
          minStreamRate,
          cloud,
          headers: { ...channel.headers },
          credentials: channel.credentials.map((credential) => ({ ...credential })),
        },
      };
    }
    default:
      return { type: eventType, event: plain } as unknown as ControlEvent;
  }
}
