/**
 * Channels page (`#/channels`, admin): every channel with its live health (polled every 5 s),
 * create / edit, enable / disable, delete, and "Test" (one tiny request through the channel).
 */
import { html, useEffect, useState } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { formatLimit, formatMs, formatPercent, formatTime, formatTokens } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { ListPagination, ListTable, PageError } from '../components/list-page-parts.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { StatusBadge } from '../components/status-badge.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { ChannelFormDialog } from './channel-form-dialog.js';

/** How often the list (and its health) is refreshed, ms. */
export const CHANNEL_POLL_MS = 5000;

/** The PUT body that re-saves `channel` as it is (credential kept: no `apiKey`) with `changes` applied. */
export function channelBody(channel, changes = {}) {
  const body = {
    provider: channel.provider,
    models: channel.models,
    modelMap: channel.modelMap,
    priority: channel.priority,
    weight: channel.weight,
    enabled: channel.enabled,
    timeoutMs: channel.timeoutMs,
    rpm: channel.rpm,
    tpm: channel.tpm,
  };
  if (channel.protocol) body.protocol = channel.protocol;
  if (channel.baseUrl) body.baseUrl = channel.baseUrl;
  return { ...body, ...changes };
}

/** The model a channel test asks for: the first listed model, else the first model-map alias. */
export function testModel(channel) {
  return channel.models[0] ?? Object.keys(channel.modelMap ?? {})[0];
}

/**
 * Hook: the row actions (test, edit, enable/disable, delete) and their state.
 * @returns {{ handlers, tests: Record<string, { pending?, result?, error? }>, actionError: Error|null, dialog, setDialog }}
 */
function useChannelActions(reload) {
  const [dialog, setDialog] = useState(null);
  const [tests, setTests] = useState({});
  const [actionError, setActionError] = useState(null);
  const toggle = async (channel) => {
    setActionError(null);
    try {
      await api.put(`/channels/${seg(channel.id)}`, channelBody(channel, { enabled: !channel.enabled }));
      reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const test = async (channel) => {
    setTests((t) => ({ ...t, [channel.id]: { pending: true } }));
    try {
      const result = await api.post(`/channels/${seg(channel.id)}/test`, { model: testModel(channel) });
      setTests((t) => ({ ...t, [channel.id]: { result } }));
    } catch (error) {
      setTests((t) => ({ ...t, [channel.id]: { error } }));
    }
  };
  const handlers = {
    edit: (channel) => setDialog({ kind: 'edit', channel }),
    remove: (channel) => setDialog({ kind: 'delete', channel }),
    toggle,
    test,
  };
  return { handlers, tests, actionError, dialog, setDialog };
}

/** The channels page. */
export function ChannelsPage() {
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/channels');
  const providers = useApiData(() => api.get('/providers'), []);
  const { handlers, tests, actionError, dialog, setDialog } = useChannelActions(list.reload);
  useEffect(() => {
    const timer = setInterval(list.reload, CHANNEL_POLL_MS);
    return () => clearInterval(timer);
  }, [list.reload]);
  const saved = () => {
    setDialog(null);
    list.reload();
  };
  const channels = list.data?.channels ?? [];
  return html`
    <section>
      <div class="page-head">
        <h2>Channels</h2>
        <small class="muted">health refreshes every ${CHANNEL_POLL_MS / 1000} s</small>
        <button type="button" data-testid="channel-create" onClick=${() => setDialog({ kind: 'create' })}>Add channel</button>
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search id, provider or model" label="Search channels" testid="channel-search" />
      </div>
      <${PageError} error=${list.error} />
      ${actionError ? html`<p class="form-error" role="alert" data-testid="form-error">${actionError.message}</p>` : null}
      <${ListTable} name="channels" columns=${9} loading=${list.loading} empty="No channels yet."
        head=${html`
          <tr>
            <th>Id</th><th>Provider / protocol</th><th>Base URL</th><th>Models</th><th class="num">Prio / weight</th>
            <th class="num">RPM / TPM</th><th>Enabled</th><th>Health</th><th class="actions">Actions</th>
          </tr>
        `}
        rows=${channels.map((c) => html`<${ChannelRows} key=${c.id} channel=${c} test=${tests[c.id]} handlers=${handlers} />`)}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      ${dialog?.kind === 'delete' ? html`<${DeleteChannelDialog} channel=${dialog.channel} onClose=${() => setDialog(null)} onDeleted=${saved} />` : null}
      ${
        dialog && dialog.kind !== 'delete'
          ? html`<${ChannelFormDialog} channel=${dialog.channel} providers=${providers.data?.providers ?? []} onClose=${() => setDialog(null)} onSaved=${saved} />`
          : null
      }
    </section>
  `;
}

function ChannelRows({ channel: c, test, handlers }) {
  const aliases = Object.entries(c.modelMap ?? {});
  return html`
    <tr data-testid=${`channel-row-${c.id}`}>
      <td><strong>${c.id}</strong></td>
      <td>${c.provider}<br /><small class="muted">${c.protocol ?? 'default protocol'}</small></td>
      <td class="url">${c.baseUrl ?? html`<span class="muted">preset default</span>`}</td>
      <td>${c.models.join(', ')}${aliases.length ? html`<br /><small class="muted">${aliases.map(([a, u]) => `${a}→${u}`).join(', ')}</small>` : null}</td>
      <td class="num">${c.priority} / ${c.weight}</td>
      <td class="num">${formatLimit(c.rpm)} / ${formatLimit(c.tpm)}</td>
      <td><${StatusBadge} status=${c.enabled ? 'enabled' : 'disabled'} testid=${`channel-status-${c.id}`} /></td>
      <td><${HealthCell} channel=${c} /></td>
      <td class="actions">
        <button type="button" class="outline small" data-testid=${`channel-test-${c.id}`} aria-busy=${test?.pending ? 'true' : undefined} disabled=${test?.pending} onClick=${() => handlers.test(c)}>Test</button>
        <button type="button" class="outline small" data-testid=${`channel-edit-${c.id}`} onClick=${() => handlers.edit(c)}>Edit</button>
        <button type="button" class="outline small secondary" data-testid=${`channel-toggle-${c.id}`} onClick=${() => handlers.toggle(c)}>${c.enabled ? 'Disable' : 'Enable'}</button>
        <button type="button" class="outline small danger" data-testid=${`channel-delete-${c.id}`} onClick=${() => handlers.remove(c)}>Delete</button>
      </td>
    </tr>
    ${test && !test.pending ? html`<tr class="sub-row"><td colspan="9"><${TestResult} id=${c.id} test=${test} /></td></tr>` : null}
  `;
}

function HealthCell({ channel }) {
  const h = channel.health;
  if (!h) return html`<span class="muted">—</span>`;
  const cooling = h.coolingDownUntil && Date.parse(h.coolingDownUntil) > Date.now();
  return html`
    <div class="health" data-testid=${`channel-health-${channel.id}`}>
      <span title="error rate in the window">${formatPercent(h.errorRate)} err</span>
      <span title="time to first token (EWMA)">${h.latencyEwmaMs ? formatMs(h.latencyEwmaMs) : '— ms'} ttft</span>
      <span title="total time of completed requests (EWMA)">${h.totalLatencyEwmaMs ? formatMs(h.totalLatencyEwmaMs) : '— ms'} total</span>
      <span title="requests in the window">${formatTokens(h.windowCount)} req</span>
      ${cooling ? html`<${StatusBadge} status="cooling" label=${`cooling until ${formatTime(h.coolingDownUntil)}`} />` : null}
      ${h.consecutiveFailures ? html`<span class="bad-text">${h.consecutiveFailures} failing</span>` : null}
      <${CredentialStates} channel=${channel} />
    </div>
  `;
}

/** The key pool's credentials (README "Key pools"): id, cooldown, last refusal, requests and rotations on this node. */
function CredentialStates({ channel }) {
  const pool = channel.credentials ?? [];
  if (pool.length === 0 || (pool.length === 1 && pool[0].id === 'default' && !pool[0].rotations)) return null;
  return html`
    <ul class="credential-states" data-testid=${`channel-credentials-${channel.id}`}>
      ${pool.map((c) => {
        const cooling = c.coolingUntil && Date.parse(c.coolingUntil) > Date.now();
        return html`<li data-testid=${`channel-credential-${channel.id}-${c.id}`} data-cooling=${String(Boolean(cooling))}>
          <strong>${c.id}</strong>
          ${cooling ? html` <${StatusBadge} status="cooling" label=${`cooling until ${formatTime(c.coolingUntil)} (${c.lastErrorKind})`} />` : null}
          <small class="muted"> ${formatTokens(c.requests)} req · ${formatTokens(c.rotations)} rotated</small>
        </li>`;
      })}
    </ul>
  `;
}

function TestResult({ id, test }) {
  const testid = `channel-test-result-${id}`;
  if (test.error)
    return html`<span class="test-result bad-text" data-testid=${testid} data-ok="false">Test failed: ${test.error.message}</span>`;
  const r = test.result;
  const parts = [r.model, formatMs(r.latencyMs), r.status ? `HTTP ${r.status}` : 'unreachable'];
  return html`
    <span class=${`test-result ${r.ok ? 'ok-text' : 'bad-text'}`} data-testid=${testid} data-ok=${String(Boolean(r.ok))}>
      <strong>${r.ok ? 'OK' : 'Failed'}</strong> · ${parts.join(' · ')}
      ${r.text ? html` · “${r.text}”` : null}${r.error ? html` · ${r.error}` : null}
    </span>
  `;
}

function DeleteChannelDialog({ channel, onClose, onDeleted }) {
  const [state, setState] = useState({ pending: false, error: null });
  const remove = async () => {
    setState({ pending: true, error: null });
    try {
      await api.delete(`/channels/${seg(channel.id)}`);
      onDeleted();
    } catch (error) {
      setState({ pending: false, error });
    }
  };
  return html`
    <${ModalDialog} title=${`Delete channel ${channel.id}?`} onClose=${onClose} testid="delete-dialog">
      <p>Requests will no longer be routed to <strong>${channel.id}</strong>; its stored credential is dropped.</p>
      ${state.error ? html`<p class="form-error" role="alert" data-testid="form-error">${state.error.message}</p>` : null}
      <footer>
        <button type="button" class="secondary" data-testid="delete-cancel" onClick=${onClose}>Cancel</button>
        <button type="button" class="danger" data-testid="confirm-delete" aria-busy=${state.pending ? 'true' : undefined} disabled=${state.pending} onClick=${remove}>Delete</button>
      </footer>
    </${ModalDialog}>
  `;
}
