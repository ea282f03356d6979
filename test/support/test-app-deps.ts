/**
 * The collaborators buildApp requires, filled in the way most tests want them when not given: an
 * in-memory control plane seeded from the config file, the control plane's channel limits on the
 * given limiter, a metrics registry of the app's own (none when `config.metricsPath` is false), a
 * drain that never begins and a readiness probe with no engine checks.
 */
import type { AppDeps } from '../../gateway/app.ts';
import type { GatewayConfig } from '../../gateway/config/config-schema.ts';
import { createLocalControlPlane } from '../../gateway/control-plane/local-control-plane.ts';
import { NodeDrain } from '../../gateway/lifecycle/node-drain.ts';
import { ReadinessProbe } from '../../gateway/lifecycle/readiness-probe.ts';
import { GatewayMetrics } from '../../gateway/metrics/gateway-metrics.ts';
import { createChannelLimits } from '../../gateway/policy/channel-limits.ts';

/** What a test must give: the adapters; everything else may be left out. */
export type TestAppDepsInput = Partial<AppDeps> & Pick<AppDeps, 'dispatcher' | 'limiter' | 'sessionStore'>;

/** `deps` with the collaborators it leaves out made as described above; what it gives is kept as it is. */
export function testAppDeps(config: GatewayConfig, deps: TestAppDepsInput): AppDeps {
  const controlPlane = deps.controlPlane ?? createLocalControlPlane(config);
  const drain = deps.drain ?? new NodeDrain();
  return {
    ...deps,
    controlPlane,
    channelLimits:
      deps.channelLimits ??
      createChannelLimits({
        limiter: deps.limiter,
        limitsOf: (channelId) => controlPlane.view.channels().find((c) => c.config.id === channelId),
      }),
    metrics: deps.metrics ?? (config.metricsPath === false ? undefined : new GatewayMetrics()),
    drain,
    readiness: deps.readiness ?? new ReadinessProbe([], () => drain.draining),
  };
}
