/**
 * The in-process credential-cooldown store (embedded mode, no REDIS_URL): a Map per channel, the
 * same contract as the Redis adapter (schemas/state-store/credential-cooldowns.ts). Ended
 * cooldowns are dropped when read.
 */
import {
  assertValidCooldown,
  type CredentialCooldown,
  type CredentialCooldownStore,
} from '../../../schemas/state-store/credential-cooldowns.ts';

/** Creates an empty in-process CredentialCooldownStore. */
export function createMemoryCredentialCooldowns(): CredentialCooldownStore {
  const byChannel = new Map<string, Map<string, CredentialCooldown>>();
  return {
    async markCooling(cooldown) {
      assertValidCooldown(cooldown);
      const channel = byChannel.get(cooldown.channelId) ?? new Map<string, CredentialCooldown>();
      byChannel.set(cooldown.channelId, channel);
      const running = channel.get(cooldown.credentialId);
      if (running && running.untilMs >= cooldown.untilMs) return;
      channel.set(cooldown.credentialId, { ...cooldown });
    },
    async readCooling(channelIds, nowMs) {
      const cooling: CredentialCooldown[] = [];
      for (const channelId of channelIds) {
        const channel = byChannel.get(channelId);
        if (!channel) continue;
        for (const [credentialId, cooldown] of channel) {
          if (cooldown.untilMs > nowMs) cooling.push({ ...cooldown });
          else channel.delete(credentialId);
        }
      }
      return cooling;
    },
    async close() {
      byChannel.clear();
    },
  };
}
