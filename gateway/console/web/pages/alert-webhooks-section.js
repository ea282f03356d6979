/**
 * Alert webhooks (admins, on the Budgets page): where budget threshold alerts are delivered — name,
 * URL, format (Standard Webhooks JSON or Slack), enabled; add one (its signing secret is shown
 * once), enable / disable and remove (`/alert-webhooks`, CONSOLE-API.md).
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { formatTime } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { ListTable, PageError } from '../components/list-page-parts.js';
import { FormButtons, FormError, Input, Select, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { SecretKeyDialog } from '../components/secret-key-dialog.js';
import { StatusBadge } from '../components/status-badge.js';

const FORMATS = [
  { value: 'json', label: 'JSON, signed (Standard Webhooks)' },
  { value: 'slack', label: 'Slack incoming webhook' },
];

/** The alert webhooks section. */
export function AlertWebhooksSection() {
  const hooks = useApiData(() => api.get('/alert-webhooks'), []);
  const [dialog, setDialog] = useState(null);
  const [toggleError, setToggleError] = useState(null);
  const done = () => {
    setDialog(null);
    hooks.reload();
  };
  const toggle = async (hook) => {
    setToggleError(null);
    try {
      await api.patch(`/alert-webhooks/${seg(hook.webhookId)}`, { enabled: !hook.enabled });
      hooks.reload();
    } catch (error) {
      setToggleError(error);
    }
  };
  const rows = hooks.data?.alertWebhooks ?? [];
  return html`
    <section data-testid="webhooks-section">
      <div class="page-head">
        <h3>Alert webhooks</h3>
        <button type="button" class="small" data-testid="webhook-create" onClick=${() => setDialog({ kind: 'create' })}>Add webhook</button>
      </div>
      <p class="muted"><small>Every budget threshold crossed is delivered once to each enabled webhook.</small></p>
      <${PageError} error=${hooks.error ?? toggleError} />
      <${ListTable} name="webhooks" columns=${6} loading=${hooks.loading && !hooks.data} empty="No alert webhooks."
        head=${html`<tr><th>Name</th><th>URL</th><th>Format</th><th>Created</th><th>Status</th><th class="actions">Actions</th></tr>`}
        rows=${rows.map(
          (h) => html`<tr key=${h.webhookId} data-testid=${`webhook-row-${h.webhookId}`}>
            <td><strong>${h.name}</strong></td>
            <td class="url">${h.url}</td>
            <td>${h.format}</td>
            <td>${formatTime(h.createdAt)}</td>
            <td><${StatusBadge} status=${h.enabled ? 'enabled' : 'disabled'} testid=${`webhook-status-${h.webhookId}`} /></td>
            <td class="actions">
              <button type="button" class="outline small" data-testid=${`webhook-toggle-${h.webhookId}`} onClick=${() => toggle(h)}>${h.enabled ? 'Disable' : 'Enable'}</button>
              <button type="button" class="outline small danger" data-testid=${`webhook-remove-${h.webhookId}`} onClick=${() => setDialog({ kind: 'remove', hook: h })}>Remove</button>
            </td>
          </tr>`,
        )}
      />
      ${dialog?.kind === 'create' ? html`<${WebhookFormDialog} onClose=${() => setDialog(null)} onCreated=${(secret) => setDialog({ kind: 'secret', secret })} />` : null}
      ${dialog?.kind === 'secret' ? html`<${SecretKeyDialog} title="Webhook signing secret" what="signing secret" apiKey=${dialog.secret} note="Receivers check the webhook-signature header with it (https://www.standardwebhooks.com/)." onClose=${done} />` : null}
      ${
        dialog?.kind === 'remove'
          ? html`<${ConfirmDialog} title=${`Remove webhook ${dialog.hook.name}?`} onConfirm=${async () => {
              await api.delete(`/alert-webhooks/${seg(dialog.hook.webhookId)}`);
              done();
            }} onClose=${() => setDialog(null)} />`
          : null
      }
    </section>
  `;
}

/** @param {{ onClose: () => void, onCreated: (secret: string) => void }} props */
function WebhookFormDialog({ onClose, onCreated }) {
  const form = useForm({ name: '', url: '', format: 'json' });
  const save = form.submit(async (values) => {
    const created = await api.post('/alert-webhooks', {
      name: values.name.trim(),
      url: values.url.trim(),
      format: values.format,
    });
    onCreated(created.secret);
  });
  return html`
    <${ModalDialog} title="Add alert webhook" onClose=${onClose} testid="webhook-dialog">
      <form onSubmit=${save}>
        <${Input} label="Name" name="name" form=${form} testid="webhook-name" required autofocus />
        <${Input} label="URL" name="url" form=${form} testid="webhook-url" placeholder="https://…" />
        <${Select} label="Format" name="format" form=${form} testid="webhook-format" options=${FORMATS} />
        <${FormError} error=${form.error} fields=${['name', 'url', 'format']} />
        <${FormButtons} form=${form} submitLabel="Add webhook" testidPrefix="webhook" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
