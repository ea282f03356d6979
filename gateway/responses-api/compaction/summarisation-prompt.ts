/**
 * The texts of gateway-side compaction: the instruction that asks a channel's model for a handoff
 * summary, and the lead-in under which an expanded summary re-enters a conversation.
 *
 * Modelled on Codex CLI's own local compaction, which asks for a checkpoint handoff summary
 * (goal, progress and decisions, constraints, next steps, critical data) and replays it as a
 * user message under a fixed lead-in: https://github.com/openai/codex/blob/main/codex-rs/core/templates/compact/prompt.md
 * and https://github.com/openai/codex/blob/main/codex-rs/core/templates/compact/summary_prefix.md.
 */

/** Appended as the last user turn of the summarisation request. */
export const SUMMARISATION_INSTRUCTION = [
  'Context checkpoint: this conversation is being compacted so that it can continue in a fresh context window.',
  'Write a handoff summary for the model that will continue the work. Cover:',
  "- the user's goal and what they asked for;",
  '- what has been done so far, and the decisions made and why;',
  '- important context, constraints and user preferences;',
  '- what remains to be done, as concrete next steps;',
  '- any data, identifiers, file names, code or references needed to continue.',
  'Be concise and structured. Answer with the summary only, without calling tools.',
].join('\n');

/** Put before an expanded summary when it is carried back into a conversation. */
export const SUMMARY_LEAD_IN =
  'Summary of the earlier part of this conversation, written when its context was compacted. Build on it and do not redo work it reports as done:';

/** The user-message text that carries an expanded summary: lead-in, blank line, summary. */
export function summaryMessageText(summary: string): string {
  return `${SUMMARY_LEAD_IN}\n\n${summary}`;
}
