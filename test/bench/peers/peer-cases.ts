/**
 * The peer gateways `npm run bench:peers` measures next to Tollgate (Portkey's OSS gateway and the
 * LiteLLM proxy), and the bench cases sent to them: the same request shapes as bench-cases.ts, with
 * the headers each peer needs to reach the shared mock upstream. Pure data, no I/O.
 */
import { benchCaseId, type BenchCase, type BenchShape } from '../bench-cases.ts';

/** A peer gateway measured by `npm run bench:peers`. */
export type PeerTarget = 'portkey' | 'litellm';

/** The peers in run order, with their names in tables. */
export const PEER_TARGETS: ReadonlyArray<{ readonly target: PeerTarget; readonly name: string }> = [
  { target: 'portkey', name: 'Portkey' },
  { target: 'litellm', name: 'LiteLLM' },
];

/** `target` is a peer gateway's. */
export function isPeerTarget(target: string): target is PeerTarget {
  return PEER_TARGETS.some((p) => p.target === target);
}

/**
 * A bench case sent to a peer: a BenchCase whose target is a peer. Peers report no outcomes, so
 * there is no path to check (`gatewayPath` is always absent).
 */
export interface PeerBenchCase extends Omit<BenchCase, 'target' | 'gatewayPath'> {
  readonly target: PeerTarget;
  readonly gatewayPath?: undefined;
}

/**
 * The case sending `shape` to `peer` with `extraHeaders` added to the shape's (e.g. Portkey's
 * routing headers). Id `<family>-<peer>[-stream]`; label the shape's, without Tollgate's
 * "pass-through" (a peer parses and re-encodes what it forwards); baseline the shape's direct case.
 */
export function peerBenchCase(
  shape: BenchShape,
  peer: PeerTarget,
  extraHeaders: Readonly<Record<string, string>> = {},
): PeerBenchCase {
  return {
    id: benchCaseId(shape.id, peer),
    label: shape.label.replace(' pass-through', ''),
    target: peer,
    shape: shape.id,
    path: shape.path,
    headers: { ...shape.headers, ...extraHeaders },
    body: shape.body,
    stream: shape.stream,
    baseline: benchCaseId(shape.id, 'direct'),
    expectInBody: shape.expectInBody,
  };
}
