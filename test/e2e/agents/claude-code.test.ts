/**
 * End to end: Claude Code 2.1.330 (`claude -p`), run offline against an in-process Tollgate whose one channel speaks each
 * upstream protocol in turn (a scripted fake upstream behind it), with the agent's default and an
 * explicit model, for a plain prompt and a tool round trip. See support/describe-agent-matrix.ts.
 */
import { describeAgentMatrix } from './support/describe-agent-matrix.ts';

describeAgentMatrix('claude-code');
