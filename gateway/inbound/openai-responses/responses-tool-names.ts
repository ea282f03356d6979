/**
 * The tools a Responses request offers, flattened into one list shared by the decoder (which
 * turns them into canonical function tools) and the encoders (which turn canonical tool calls
 * back into the client's own `function_call` / `custom_tool_call` items). Both call
 * `listResponsesTools` on the same raw body, so decode and encode cannot disagree on names.
 *
 * Sources, in order: top-level `tools`, then the `tools` of every `additional_tools` input item
 * (the shape Codex CLI sends; schema `AdditionalTools` in the OpenAI OpenAPI document).
 * Tool kinds carried: `function`, `custom` (https://platform.openai.com/docs/guides/function-calling#custom-tools)
 * and `namespace` (schema `NamespaceToolParam`, holding function/custom tools). Any other kind is
 * refused with a RequestFieldError naming it.
 *
 * Naming rule (canonical name = the name the upstream sees):
 * - a tool outside any namespace, or inside the namespace `functions` (Codex's default), keeps its
 *   bare `name`;
 * - a tool inside any other namespace becomes `<namespace>__<name>`;
 * - if that result does not match `^[a-zA-Z0-9_-]{1,64}$` (the function-name rule the upstream
 *   protocols share), every other character becomes `_` and, when anything was replaced or the
 *   name is longer than 64, it is cut to 55 characters + `_` + the first 8 hex digits of the
 *   SHA-256 of the unescaped name — deterministic, and distinct names stay distinct.
 * Two tools yielding the same canonical name are refused.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { customToolSchema, functionToolSchema, namespaceToolSchema } from './responses-request-schema.ts';

/** One callable tool: `{canonicalName, name, namespace?, kind, tool: the client's tool object, path}`. */
export interface ResponsesToolEntry {
  readonly canonicalName: string;
  readonly name: string;
  readonly namespace?: string;
  readonly kind: 'function' | 'custom';
  readonly tool: Readonly<Record<string, unknown>>;
  readonly path: FieldPath;
}

/** Codex's default namespace: its tools keep their bare names. */
const DEFAULT_NAMESPACE = 'functions';
const SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;
const HASH_DIGITS = 8;

/** The canonical (upstream) name of tool `name` declared in `namespace` (see the module rule). */
export function qualifiedToolName(namespace: string | null | undefined, name: string): string {
  const full = namespace && namespace !== DEFAULT_NAMESPACE ? `${namespace}__${name}` : name;
  if (SAFE_NAME.test(full)) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_DIGITS);
  const escaped = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${escaped.slice(0, MAX_NAME - HASH_DIGITS - 1)}_${hash}`;
}

function entry(tool: Record<string, unknown>, path: FieldPath, namespace: string | undefined): ResponsesToolEntry {
  const parsed =
    tool.type === 'custom' ? parseAt(customToolSchema, tool, path) : parseAt(functionToolSchema, tool, path);
  const base = {
    canonicalName: qualifiedToolName(namespace, parsed.name),
    name: parsed.name,
    kind: parsed.type,
    tool,
    path,
  };
  return namespace === undefined ? base : { ...base, namespace };
}

/** Told of a tool kind the gateway cannot translate (skipped). */
export type UnsupportedToolListener = (path: FieldPath, type: string) => void;

/** Flattens one entry of a tool list (a namespace yields its inner tools); other kinds are skipped and reported. */
function flattenTool(
  tool: unknown,
  path: FieldPath,
  out: ResponsesToolEntry[],
  onUnsupported: UnsupportedToolListener,
): void {
  if (!isJsonObject(tool) || typeof tool.type !== 'string')
    throw new RequestFieldError(path, 'expected an object with a string `type`');
  if (tool.type === 'function' || tool.type === 'custom') {
    out.push(entry(tool, path, undefined));
    return;
  }
  if (tool.type !== 'namespace') return onUnsupported(path, tool.type);
  const namespace = parseAt(namespaceToolSchema, tool, path);
  namespace.tools.forEach((inner, index) => {
    const at = [...path, 'tools', index];
    if (!isJsonObject(inner) || typeof inner.type !== 'string')
      throw new RequestFieldError(at, 'expected an object with a string `type`');
    if (inner.type !== 'function' && inner.type !== 'custom') return onUnsupported(at, inner.type);
    out.push(entry(inner, at, namespace.name));
  });
}

/**
 * Every function and custom tool the body offers, in order (top-level `tools`, then
 * `additional_tools` items); other kinds (built-in tools) are skipped and reported to
 * `onUnsupported`. Throws RequestFieldError for a malformed tool and for duplicate canonical names.
 */
export function listResponsesTools(
  body: Readonly<Record<string, unknown>>,
  onUnsupported: UnsupportedToolListener = () => undefined,
): ResponsesToolEntry[] {
  const out: ResponsesToolEntry[] = [];
  if (Array.isArray(body.tools))
    body.tools.forEach((tool, index) => flattenTool(tool, ['tools', index], out, onUnsupported));
  if (Array.isArray(body.input)) {
    body.input.forEach((item, index) => {
      if (!isJsonObject(item) || item.type !== 'additional_tools') return;
      if (!Array.isArray(item.tools)) throw new RequestFieldError(['input', index, 'tools'], 'expected an array');
      item.tools.forEach((tool, toolIndex) =>
        flattenTool(tool, ['input', index, 'tools', toolIndex], out, onUnsupported),
      );
    });
  }
  const seen = new Set<string>();
  for (const tool of out) {
    if (seen.has(tool.canonicalName))
      throw new RequestFieldError([...tool.path, 'name'], `duplicate tool name '${tool.canonicalName}'`);
    seen.add(tool.canonicalName);
  }
  return out;
}

/** Canonical name → entry, for the encoders. The body was validated by the decoder; a body that no longer validates maps nothing. */
export function responsesToolsByCanonicalName(
  body: Readonly<Record<string, unknown>>,
): ReadonlyMap<string, ResponsesToolEntry> {
  try {
    return new Map(listResponsesTools(body).map((tool) => [tool.canonicalName, tool]));
  } catch (error) {
    if (error instanceof RequestFieldError) return new Map();
    throw error;
  }
}
