/**
 * The audit printer's decoding of a config-topic record (consumers/audit/decode-log-record.ts):
 * a ChannelUpserted with a key pool prints its credentials' ids and limits, never a ciphertext.
 */
import { describe, expect, it } from 'vitest';
import { decodeLogRecord } from '../../../../consumers/audit/decode-log-record.ts';
import { encodeControlEvent } from '../../../../schemas/control-plane/control-event-codec.ts';
import { CONFIG_TOPIC } from '../../../../schemas/topics.ts';
import { channelUpserted } from '../../control-plane/control-event-fixtures.ts';

describe('decodeLogRecord', () => {
  it('drops the ciphertexts of a channel and of each pooled credential', () => {
    const event = channelUpserted({
      credentials: [
        { id: 'key-a', apiKeyCiphertext: 'CIPHER-A', rpm: 60, tpm: null },
        { id: 'key-b', apiKeyCiphertext: 'CIPHER-B', rpm: null, tpm: null },
      ],
    });
    const decoded = decodeLogRecord(CONFIG_TOPIC, encodeControlEvent(event));
    expect(decoded).toMatchObject({
      kind: 'event',
      type: 'ChannelUpserted',
      event: {
        channelId: 'ch-1',
        credentials: [
          { id: 'key-a', rpm: 60, tpm: null },
          { id: 'key-b', rpm: null, tpm: null },
        ],
      },
    });
    const text = JSON.stringify(decoded);
    expect(text).not.toContain('CIPHER');
    expect(text).not.toContain('apiKeyCiphertext');
  });
});
