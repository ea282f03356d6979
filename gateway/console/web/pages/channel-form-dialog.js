/**
 * Create / edit channel dialog → `PUT /channels/:id`. The provider select (from `GET
 * /providers`) fills the protocol choices and the base-URL placeholder. The credential is a
 * password field that always starts empty; left empty on an edit it is not sent, so the server
 * keeps the stored one. A cloud provider (Azure, Bedrock, Vertex) adds its auth method and the
 * settings its channels read (region, project, api-version, tenant and client ids, role); every
 * channel may set extra upstream headers (`Name: value` lines, e.g. OpenRouter's attribution).
 * A key pool (README "Key pools") is one line per credential, `id key=… rpm=N tpm=N`; on an edit
 * the lines start with the ids and limits only, and a line without `key=` keeps the stored key.
 */
import { html } from '/console/vendor/htm-preact.js';
import { ApiError, api, seg } from '../api-client.js';
import { inputValue, parseList, parseOptionalNumber } from '../format.js';
import { FormButtons, FormError, Input, Select, Switch, TextArea, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = [
  'id',
  'provider',
  'protocol',
  'baseUrl',
  'apiKey',
  'models',
  'modelMap',
  'priority',
  'weight',
  'enabled',
  'timeoutMs',
  'rpm',
  'tpm',
  'cloud',
  'headers',
  'credentials',
];

/** Labels and hints of the cloud settings (README "Cloud channels"). */
const CLOUD_SETTING_FIELDS = {
  region: { label: 'Region', hint: 'AWS region (us-east-1) or Vertex location (us-central1, global)' },
  project: { label: 'Project', hint: 'Google Cloud project id' },
  apiVersion: { label: 'API version', hint: 'blank = the v1 surface; a date = the deployment surface' },
  tenantId: { label: 'Tenant id', hint: 'Microsoft Entra ID directory' },
  clientId: { label: 'Client id', hint: 'Microsoft Entra ID application' },
  roleArn: { label: 'Role ARN', hint: 'optional: a role to assume' },
  externalId: { label: 'External id', hint: "optional: the role's external id" },
};

/** What the API key field holds for each cloud auth method. */
const CLOUD_KEY_HINTS = {
  'api-key': 'the API key',
  'entra-id': 'the client secret',
  sigv4: "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]; blank = the host's AWS credential chain",
  'service-account': "the service-account key file's JSON",
  'default-credentials': "none: the host's Application Default Credentials",
};

/**
 * `"Name: value"` lines → `{ Name: value }` (blank lines skipped).
 * @throws ApiError (status 0, field `headers`) naming the first line without `:`.
 */
export function parseHeaderLines(text) {
  const headers = {};
  String(text ?? '')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.trim();
      if (!line) return;
      const at = line.indexOf(':');
      const name = line.slice(0, at).trim();
      if (at < 0 || !name) throw new ApiError(`headers: line ${index + 1}: expected Name: value`, 0, 'headers');
      headers[name] = line.slice(at + 1).trim();
    });
  return headers;
}

/**
 * `"alias=upstream"` lines → `{ alias: upstream }` (blank lines skipped).
 * @throws ApiError (status 0, field `modelMap`) naming the first line without `=`.
 */
export function parseModelMap(text) {
  const map = {};
  String(text ?? '')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.trim();
      if (!line) return;
      const at = line.indexOf('=');
      const alias = line.slice(0, at).trim();
      const upstream = line.slice(at + 1).trim();
      if (at < 0 || !alias || !upstream)
        throw new ApiError(`modelMap: line ${index + 1}: expected alias=upstream`, 0, 'modelMap');
      map[alias] = upstream;
    });
  return map;
}

/** The parts a key-pool line may have besides its id. */
const CREDENTIAL_PARTS = new Set(['key', 'rpm', 'tpm']);

/**
 * Key-pool lines `id key=… rpm=N tpm=N` → the admin API's `credentials` (blank lines skipped;
 * without `key=` the stored key of that id is kept). Never quotes a key in its errors.
 * @throws ApiError (status 0, field `credentials`) naming the first malformed line
 */
export function parseCredentialLines(text) {
  const credentials = [];
  String(text ?? '')
    .split('\n')
    .forEach((raw, index) => {
      const [id, ...parts] = raw.trim().split(/\s+/).filter(Boolean);
      if (!id) return;
      const credential = { id };
      for (const part of parts) {
        const at = part.indexOf('=');
        const name = part.slice(0, Math.max(at, 0));
        if (!CREDENTIAL_PARTS.has(name))
          throw new ApiError(`credentials: line ${index + 1}: expected id key=… rpm=N tpm=N`, 0, 'credentials');
        const value = part.slice(at + 1);
        if (name === 'key') credential.apiKey = value;
        else credential[name] = parseOptionalNumber(value);
      }
      credentials.push(credential);
    });
  return credentials;
}

/** A channel's key pool as form lines (ids and limits, never a key); '' for a channel with one credential. */
export function credentialLines(channel) {
  const pool = channel?.credentials ?? [];
  if (pool.length === 0 || (pool.length === 1 && pool[0].id === 'default')) return '';
  return pool
    .map((c) =>
      [c.id, c.rpm === null ? '' : `rpm=${c.rpm}`, c.tpm === null ? '' : `tpm=${c.tpm}`].filter(Boolean).join(' '),
    )
    .join('\n');
}

/** Form values of a channel (or a new channel's defaults). The credential always starts empty. */
export function channelFormValues(channel) {
  return {
    id: channel?.id ?? '',
    provider: channel?.provider ?? 'openai',
    protocol: channel?.protocol ?? '',
    baseUrl: channel?.baseUrl ?? '',
    apiKey: '',
    models: channel ? channel.models.join(', ') : '',
    modelMap: channel
      ? Object.entries(channel.modelMap)
          .map(([a, u]) => `${a}=${u}`)
          .join('\n')
      : '',
    priority: inputValue(channel?.priority ?? 0),
    weight: inputValue(channel?.weight ?? 1),
    enabled: channel?.enabled ?? true,
    timeoutMs: inputValue(channel?.timeoutMs ?? 600000),
    rpm: inputValue(channel?.rpm),
    tpm: inputValue(channel?.tpm),
    cloudAuth: channel?.cloud?.auth ?? '',
    ...Object.fromEntries(Object.keys(CLOUD_SETTING_FIELDS).map((name) => [name, channel?.cloud?.[name] ?? ''])),
    headers: Object.entries(channel?.headers ?? {})
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    credentials: credentialLines(channel),
  };
}

/**
 * The PUT body of the form; blank optional fields are left out (server defaults apply). `cloud`:
 * the chosen provider's cloud form (`GET /providers`: auth methods and settings), if it is a cloud.
 */
export function channelFormBody(values, cloud) {
  const body = {
    provider: values.provider,
    models: parseList(values.models) ?? [],
    modelMap: parseModelMap(values.modelMap),
    enabled: values.enabled,
    rpm: parseOptionalNumber(values.rpm),
    tpm: parseOptionalNumber(values.tpm),
  };
  if (values.protocol) body.protocol = values.protocol;
  if (values.baseUrl.trim()) body.baseUrl = values.baseUrl.trim();
  const credentials = parseCredentialLines(values.credentials);
  if (credentials.length > 0) body.credentials = credentials;
  else if (values.apiKey !== '') body.apiKey = values.apiKey;
  for (const name of ['priority', 'weight', 'timeoutMs']) {
    const n = parseOptionalNumber(values[name]);
    if (n !== null) body[name] = n;
  }
  if (cloud) {
    const settings = {};
    if (values.cloudAuth) settings.auth = values.cloudAuth;
    for (const name of cloud.settings)
      if (name !== 'auth' && String(values[name] ?? '').trim()) settings[name] = values[name].trim();
    if (Object.keys(settings).length > 0) body.cloud = settings;
  }
  body.headers = parseHeaderLines(values.headers);
  return body;
}

function protocolOptions(provider) {
  if (!provider) return [{ value: '', label: 'default' }];
  return [
    { value: '', label: `default (${provider.defaultProtocol})` },
    ...provider.protocols.map((p) => ({ value: p.protocol, label: p.protocol })),
  ];
}

/** The provider's endpoint for the chosen protocol (or its default protocol), if it offers one. */
function chosenEndpoint(provider, protocol) {
  return provider?.protocols.find((p) => p.protocol === (protocol || provider.defaultProtocol));
}

/**
 * The preset's base URL as placeholder; `required` when the provider has no default host (generic
 * compatible kinds, Azure), the regional host's pattern for Bedrock and Vertex.
 */
export function baseUrlPlaceholder(provider, protocol) {
  if (!provider) return 'preset default';
  const chosen = chosenEndpoint(provider, protocol);
  if (chosen?.regionalBaseUrl) return `from the region: ${chosen.regionalBaseUrl}`;
  if (chosen && chosen.baseUrl === null) return 'required: this provider has no default host';
  return chosen?.baseUrl ?? 'preset default';
}

/** True when the chosen endpoint needs no key (keyless local servers: auth `optional-bearer`). */
export function keyIsOptional(provider, protocol) {
  return chosenEndpoint(provider, protocol)?.auth === 'optional-bearer';
}

function apiKeyHint(editing, keyless, cloudAuth) {
  if (editing) return 'blank = keep the stored credential; it is never shown again';
  if (cloudAuth) return `${CLOUD_KEY_HINTS[cloudAuth] ?? 'the credential'}; stored encrypted, never shown again`;
  return keyless
    ? 'optional: a local server needs none unless it was started with one'
    : 'stored encrypted; never shown again';
}

/**
 * @param {{ channel?: object, providers: Array<{ id, displayName, defaultProtocol, protocols: Array<{ protocol, baseUrl }> }>,
 *   onClose: () => void, onSaved: () => void }} props
 */
export function ChannelFormDialog({ channel, providers, onClose, onSaved }) {
  const editing = Boolean(channel);
  const form = useForm(channelFormValues(channel));
  const provider = providers.find((p) => p.id === form.values.provider);
  const providerOptions = providers.map((p) => ({ value: p.id, label: p.displayName }));
  if (!provider) providerOptions.unshift({ value: form.values.provider, label: form.values.provider });
  const chooseProvider = (id) => form.setValues((v) => ({ ...v, provider: id, protocol: '', cloudAuth: '' }));
  const cloud = provider?.cloud;
  const cloudAuth = cloud ? form.values.cloudAuth || cloud.authMethods[0] : '';
  const save = form.submit(async (values) => {
    const id = values.id.trim();
    if (!id) throw new ApiError('id: must not be empty', 0, 'id');
    await api.put(`/channels/${seg(id)}`, channelFormBody(values, cloud));
    onSaved();
  });
  const cloudFields = cloud
    ? html`<div class="grid">
        <${Select} label="Auth" name="cloudAuth" form=${form} testid="channel-cloud-auth"
          options=${cloud.authMethods.map((m, i) => ({ value: i === 0 ? '' : m, label: i === 0 ? `${m} (default)` : m }))} />
        ${cloud.settings
          .filter((name) => name !== 'auth')
          .map(
            (name) =>
              html`<${Input} label=${CLOUD_SETTING_FIELDS[name].label} name=${name} form=${form} testid=${`channel-cloud-${name}`} hint=${CLOUD_SETTING_FIELDS[name].hint} />`,
          )}
      </div>`
    : null;
  return html`
    <${ModalDialog} title=${editing ? `Edit channel ${channel.id}` : 'Add channel'} onClose=${onClose} testid="channel-dialog" wide>
      <form onSubmit=${save}>
        <div class="grid">
          <${Input} label="Id" name="id" form=${form} testid="channel-id" required disabled=${editing} pattern="[A-Za-z0-9._:\\-]+" hint="letters, digits, . _ : -" autofocus=${!editing} />
          <${Select} label="Provider" name="provider" form=${form} testid="channel-provider" options=${providerOptions} onChoose=${chooseProvider} />
          <${Select} label="Protocol" name="protocol" form=${form} testid="channel-protocol" options=${protocolOptions(provider)} />
        </div>
        <${Input} label="Base URL" name="baseUrl" type="url" form=${form} testid="channel-base-url" placeholder=${baseUrlPlaceholder(provider, form.values.protocol)} hint="blank = the provider's default" />
        ${cloudFields}
        <${Input} label="API key" name="apiKey" type="password" form=${form} testid="channel-api-key" autocomplete="off"
          placeholder=${editing && channel.hasApiKey ? 'unchanged' : keyIsOptional(provider, form.values.protocol) ? 'none' : ''} hint=${apiKeyHint(editing, keyIsOptional(provider, form.values.protocol), cloudAuth)} />
        <${TextArea} label="Key pool" name="credentials" form=${form} testid="channel-credentials" rows="2" spellcheck="false" autocomplete="off"
          placeholder="key-a key=sk-… rpm=500" hint="instead of the API key: one credential per line, id key=… rpm=N tpm=N; without key= a stored key is kept; rotated on 429, 401, 403" />
        <div class="grid">
          <${Input} label="Models" name="models" form=${form} testid="channel-models" placeholder="gpt-4o-mini, gpt-4o" hint="comma-separated" />
          <${TextArea} label="Model map" name="modelMap" form=${form} testid="channel-model-map" rows="2" placeholder="alias=upstream-model" hint="one alias=upstream per line" />
        </div>
        <div class="grid">
          <${Input} label="Priority" name="priority" type="number" step="1" form=${form} testid="channel-priority" />
          <${Input} label="Weight" name="weight" type="number" min="0" step="any" form=${form} testid="channel-weight" />
          <${Input} label="Timeout (ms)" name="timeoutMs" type="number" min="1" step="1" form=${form} testid="channel-timeout" />
          <${Input} label="RPM" name="rpm" type="number" min="1" step="1" form=${form} testid="channel-rpm" placeholder="unlimited" />
          <${Input} label="TPM" name="tpm" type="number" min="1" step="1" form=${form} testid="channel-tpm" placeholder="unlimited" />
        </div>
        <${TextArea} label="Extra headers" name="headers" form=${form} testid="channel-headers" rows="2" placeholder="HTTP-Referer: https://example.org" hint="one Name: value per line, sent upstream on every call (not secret)" />
        <${Switch} label="Enabled" name="enabled" form=${form} testid="channel-enabled" />
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Add channel'} testidPrefix="channel" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
