/**
 * End to end: Codex CLI 0.169.0 (`codex exec`), run offline against an in-process Tollgate whose one channel speaks each
 * upstream protocol in turn (a scripted fake upstream behind it), with the agent's default and an
 * explicit model, for a plain prompt and a tool round trip. See support/describe-agent-matrix.ts.
 */
import { describeAgentMatrix } from './support/describe-agent-matrix.ts';

describeAgentMatrix('codex');
