/**
 * Create / edit channel dialog → `PUT /channels/:id`. The provider select (from `GET
 * /providers`) fills the protocol choices and the base-URL placeholder. The credential is a
 * password field that always starts empty; left empty on an edit it is not sent, so the server
 * keeps the stored one.
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
];

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
  };
}

/** The PUT body of the form; blank optional fields are left out (server defaults apply). */
export function channelFormBody(values) {
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
  if (values.apiKey !== '') body.apiKey = values.apiKey;
  for (const name of ['priority', 'weight', 'timeoutMs']) {
    const n = parseOptionalNumber(values[name]);
    if (n !== null) body[name] = n;
  }
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

/** The preset's base URL as placeholder; `required` when the provider has no default host (generic compatible kinds). */
export function baseUrlPlaceholder(provider, protocol) {
  if (!provider) return 'preset default';
  const chosen = chosenEndpoint(provider, protocol);
  if (chosen && chosen.baseUrl === null) return 'required: this provider has no default host';
  return chosen?.baseUrl ?? 'preset default';
}

/** True when the chosen endpoint needs no key (keyless local servers: auth `optional-bearer`). */
export function keyIsOptional(provider, protocol) {
  return chosenEndpoint(provider, protocol)?.auth === 'optional-bearer';
}

function apiKeyHint(editing, keyless) {
  if (editing) return 'blank = keep the stored credential; it is never shown again';
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
  const chooseProvider = (id) => form.setValues((v) => ({ ...v, provider: id, protocol: '' }));
  const save = form.submit(async (values) => {
    const id = values.id.trim();
    if (!id) throw new ApiError('id: must not be empty', 0, 'id');
    await api.put(`/channels/${seg(id)}`, channelFormBody(values));
    onSaved();
  });
  return html`
    <${ModalDialog} title=${editing ? `Edit channel ${channel.id}` : 'Add channel'} onClose=${onClose} testid="channel-dialog" wide>
      <form onSubmit=${save}>
        <div class="grid">
          <${Input} label="Id" name="id" form=${form} testid="channel-id" required disabled=${editing} pattern="[A-Za-z0-9._:\\-]+" hint="letters, digits, . _ : -" autofocus=${!editing} />
          <${Select} label="Provider" name="provider" form=${form} testid="channel-provider" options=${providerOptions} onChoose=${chooseProvider} />
          <${Select} label="Protocol" name="protocol" form=${form} testid="channel-protocol" options=${protocolOptions(provider)} />
        </div>
        <${Input} label="Base URL" name="baseUrl" type="url" form=${form} testid="channel-base-url" placeholder=${baseUrlPlaceholder(provider, form.values.protocol)} hint="blank = the provider's default" />
        <${Input} label="API key" name="apiKey" type="password" form=${form} testid="channel-api-key" autocomplete="off"
          placeholder=${editing && channel.hasApiKey ? 'unchanged' : keyIsOptional(provider, form.values.protocol) ? 'none' : ''} hint=${apiKeyHint(editing, keyIsOptional(provider, form.values.protocol))} />
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
        <${Switch} label="Enabled" name="enabled" form=${form} testid="channel-enabled" />
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Add channel'} testidPrefix="channel" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
