/** Topic creation settings: the config topic gets one partition and infinite retention, prefixed or not. */
import { describe, expect, it } from 'vitest';
import { partitionsFor, TOPIC_PARTITIONS, TOPICS, topicCreationSpec, CONFIG_TOPIC } from '../../../schemas/topics.ts';

describe('topicCreationSpec', () => {
  it.each([CONFIG_TOPIC, `staging.${CONFIG_TOPIC}`, `cp-run-1.${CONFIG_TOPIC}`])(
    '%s: one partition, retention.ms -1',
    (topic) => {
      expect(topicCreationSpec(topic)).toEqual({
        topic,
        numPartitions: 1,
        configEntries: [{ name: 'retention.ms', value: '-1' }],
      });
      expect(partitionsFor(topic)).toBe(1);
    },
  );

  it.each([...Object.values(TOPICS), `staging.${TOPICS.requests}`, `${CONFIG_TOPIC}s`, `${CONFIG_TOPIC}.other`])(
    '%s: the default partitions and broker settings',
    (topic) => {
      expect(topicCreationSpec(topic)).toEqual({ topic, numPartitions: TOPIC_PARTITIONS, configEntries: [] });
    },
  );
});
