/**
 * The `{modelId}` path label of Amazon Bedrock Runtime operations
 * (`/model/{modelId}/converse`, `/invoke`, …: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_RequestSyntax),
 * shared by the Converse adapter and the InvokeModel surface.
 */

/**
 * `modelId` as one URL path segment, percent-encoded as the AWS SDKs send it: the `:` of a version
 * (`…-v1:0` → `…-v1%3A0`) and the `/` of an ARN are escaped, and so are `!'()*`
 * (RFC 3986 reserved characters that encodeURIComponent leaves alone).
 */
export function bedrockModelPathSegment(modelId: string): string {
  return encodeURIComponent(modelId).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
