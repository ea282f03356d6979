/**
 * Kafka topic names (also the embedded log's file names). Every traffic event is keyed by its
 * request id, so one request's events stay in one partition, in order; budget alerts are keyed by
 * their budget id. The control plane's
 * config topic (CONFIG_TOPIC) is created with one partition and infinite retention (see
 * topicCreationSpec).
 */

export const TOPICS = {
  /** RequestCompleted: one per client request, carrying its final usage. */
  requests: 'tollgate.requests',
  /** UsageRecorded: one per request that a channel served (billing, spend). */
  usage: 'tollgate.usage',
  /** FailoverOccurred: one per channel left for the next. */
  failovers: 'tollgate.failovers',
  /** BudgetThresholdCrossed: one per budget, window and threshold reached (published by the billing consumer). */
  alerts: 'tollgate.alerts',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

/**
 * The config topic: every control event (users, keys, channels, prices, admin tokens; the Avro
 * schemas in control-plane/avro/), keyed by entity id, in one partition, kept forever.
 */
export const CONFIG_TOPIC = 'tollgate.config';

/** Partitions per topic when the gateway creates them. */
export const TOPIC_PARTITIONS = 3;

/** Partition counts that differ from TOPIC_PARTITIONS: the config topic has ONE (one global order of control events). */
export const TOPIC_PARTITION_OVERRIDES: Readonly<Record<string, number>> = { [CONFIG_TOPIC]: 1 };

/** Topic-level Kafka configs set at creation: the config topic is kept forever (`retention.ms` = -1). */
export const TOPIC_CONFIG_OVERRIDES: Readonly<
  Record<string, ReadonlyArray<{ readonly name: string; readonly value: string }>>
> = {
  [CONFIG_TOPIC]: [{ name: 'retention.ms', value: '-1' }],
};

/** What the Kafka adapter passes to `admin.createTopics` for one topic (kafkajs ITopicConfig). */
export interface TopicCreationSpec {
  readonly topic: string;
  readonly numPartitions: number;
  readonly configEntries: Array<{ name: string; value: string }>;
}

/**
 * The creation settings of `topic`: its override (matched exactly, or as the end of a prefixed
 * name such as `staging.tollgate.config`, see prefixed-event-log.ts), else TOPIC_PARTITIONS
 * partitions and the broker's defaults. An existing topic is never changed by them.
 */
export function topicCreationSpec(topic: string): TopicCreationSpec {
  const partitions = TOPIC_PARTITION_OVERRIDES[overrideName(topic, TOPIC_PARTITION_OVERRIDES) ?? ''];
  const configs = TOPIC_CONFIG_OVERRIDES[overrideName(topic, TOPIC_CONFIG_OVERRIDES) ?? ''] ?? [];
  return {
    topic,
    numPartitions: partitions ?? TOPIC_PARTITIONS,
    configEntries: configs.map(({ name, value }) => ({ name, value })),
  };
}

/** Partitions `topic` is created with (see topicCreationSpec). */
export function partitionsFor(topic: string): number {
  return topicCreationSpec(topic).numPartitions;
}

/** The key of `table` that `topic` is, or ends with (a prefixed name); the longest wins. */
function overrideName(topic: string, table: Readonly<Record<string, unknown>>): string | undefined {
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    if ((topic === name || topic.endsWith(name)) && (best === undefined || name.length > best.length)) best = name;
  }
  return best;
}
