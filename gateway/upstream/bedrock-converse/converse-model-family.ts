/**
 * Which model family a Bedrock model id names, for the parts of a Converse request that differ by
 * family (https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html):
 * reasoning switches, `top_k`, tool-result status. Ids are base model ids
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0`), cross-region inference profiles
 * (`us.anthropic.claude-…`, `global.…`) or ARNs that hold one of those; an application inference
 * profile ARN names no family and is `other`.
 */

/** A model family whose Converse request fields the adapter knows. */
export type ConverseModelFamily = 'anthropic' | 'nova' | 'other';

/** The family of `modelId` (see the module comment). */
export function converseModelFamily(modelId: string): ConverseModelFamily {
  const id = modelId.toLowerCase();
  if (id.includes('anthropic.claude')) return 'anthropic';
  if (id.includes('amazon.nova')) return 'nova';
  return 'other';
}

/** True for the Amazon Nova 2 models, which take a `reasoningConfig` (https://docs.aws.amazon.com/nova/latest/nova2-userguide/extended-thinking.html). */
export function isNova2(modelId: string): boolean {
  return /amazon\.nova-2/i.test(modelId);
}
