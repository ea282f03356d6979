/**
 * What the router asks about a channel's health on every request (answered from memory, never
 * by a network call). Implemented by ChannelHealthView (channel-health-view.ts).
 */
export interface ChannelHealthSource {
  /** True while routing should try the channel only after every other candidate (shared cooldown or local breaker open). */
  isCoolingDown(channelId: string): boolean;
  /** Failures / observations in the shared sliding window, 0..1 (0 when unknown). */
  errorRate(channelId: string): number;
}
