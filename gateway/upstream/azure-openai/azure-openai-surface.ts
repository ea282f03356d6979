/**
 * Azure OpenAI as a surface over the OpenAI adapters: the wrapped adapter (Chat Completions or
 * Responses) builds the body and decodes the answers; this wrapper sends its calls to the
 * channel's Azure resource (azure-openai-urls.ts), drops Azure's prompt-annotation stream chunk
 * and classifies Azure's errors (classify-azure-openai-error.ts). The credential (`api-key` or an
 * Entra ID bearer token) is added afterwards by the credentials step (cloud-credentials/), so no
 * credential header is set here.
 */
import type { CanonicalRequest } from '../../canonical/request.ts';
import type {
  UpstreamAdapter,
  UpstreamCallTarget,
  UpstreamDecodeContext,
  UpstreamStreamDecoder,
  UpstreamTarget,
} from '../upstream-adapter.ts';
import { asArray, asRecord } from '../shared/read-json-field.ts';
import { azureCallBase, type AzureProtocol } from '../shared/azure-openai-urls.ts';
import { classifyAzureOpenAiError } from './classify-azure-openai-error.ts';

/** `target` with its base URL moved to the Azure resource's path for `protocol`, and the query to append to the built URL. */
function azureTarget(protocol: AzureProtocol, target: UpstreamTarget): { target: UpstreamTarget; query: string } {
  const base = azureCallBase(protocol, target.baseUrl, target.upstreamModel, target.cloud?.apiVersion);
  return { target: { ...target, baseUrl: base.baseUrl }, query: base.query };
}

/**
 * True for the chunk Azure sends first on a Chat Completions stream, before any choice: `choices`
 * empty, `prompt_filter_results` set, `id` and `model` empty, no usage
 * (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter,
 * "Streaming"). It says only how the prompt was rated, so it is not the message's start.
 */
function isPromptAnnotationChunk(data: string): boolean {
  if (!data.includes('prompt_filter_results')) return false;
  try {
    const chunk = asRecord(JSON.parse(data) as unknown);
    return (
      chunk !== undefined &&
      asArray(chunk.choices).length === 0 &&
      chunk.prompt_filter_results !== undefined &&
      (chunk.usage === undefined || chunk.usage === null)
    );
  } catch {
    return false;
  }
}

/** The wrapped decoder without Azure's prompt-annotation chunks (isPromptAnnotationChunk). */
function withoutPromptAnnotations(decoder: UpstreamStreamDecoder): UpstreamStreamDecoder {
  return {
    push: (sse) => (isPromptAnnotationChunk(sse.data) ? [] : decoder.push(sse)),
    end: () => decoder.end(),
  };
}

/**
 * The Azure OpenAI surface of `inner`, the `openai-chat` or `openai-responses` adapter (composed
 * in gateway/app.ts as `azure:openai-chat` and `azure:openai-responses`). Calls go to the
 * channel's resource endpoint (its `baseUrl`) on the v1 surface, or on the dated surface when
 * the channel sets `cloud.apiVersion`; the deployment is the channel's upstream model (after
 * `modelMap`). Token counting is not offered (Azure documents no count endpoint for either API).
 * @throws Error at composition when `inner` speaks another protocol (a wiring mistake).
 */
export function azureOpenAiSurface(inner: UpstreamAdapter): UpstreamAdapter {
  const protocol = inner.protocol;
  if (protocol !== 'openai-chat' && protocol !== 'openai-responses')
    throw new Error(`Azure OpenAI serves openai-chat and openai-responses, not ${protocol}`);
  const callTarget = (request: CanonicalRequest, target: UpstreamTarget): UpstreamCallTarget => {
    const azure = azureTarget(protocol, target);
    const call = inner.passThroughTarget(request, azure.target);
    return { ...call, url: `${call.url}${azure.query}` };
  };
  return {
    protocol,
    ...(inner.streamFraming === undefined ? {} : { streamFraming: inner.streamFraming }),
    buildRequest(request, target) {
      const azure = azureTarget(protocol, target);
      const built = inner.buildRequest(request, azure.target);
      return { ...built, request: { ...built.request, url: `${built.request.url}${azure.query}` } };
    },
    passThroughTarget: callTarget,
    decodeResponse: (body: unknown, context: UpstreamDecodeContext) => inner.decodeResponse(body, context),
    createStreamDecoder: (context) => withoutPromptAnnotations(inner.createStreamDecoder(context)),
    classifyError: classifyAzureOpenAiError,
  };
}
