/**
 * Kafka topic names (also the embedded log's file names). Every traffic event is keyed by its
 * request id, so one request's events stay in one partition, in order.
 */
export const TOPICS = {
  /** RequestCompleted: one per client request, carrying its final usage. */
  requests: 'tollgate.requests',
  /** UsageRecorded: one per request that a channel served (billing, spend). */
  usage: 'tollgate.usage',
  /** FailoverOccurred: one per channel left for the next. */
  failovers: 'tollgate.failovers',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

/** Partitions per topic when the gateway creates them. */
export const TOPIC_PARTITIONS = 3;
