/**
 * Prices page (`#/prices`, admin): the price book (USD per million tokens per model, optionally
 * per channel, with effective dates and each entry's standing: in force, scheduled, superseded)
 * and the "Set price" dialog → `PUT /prices` (blank start = from now; a price another entry would
 * win over is refused, naming that entry, unless "Set even if another entry wins" is on).
 */
import { html } from '/console/vendor/htm-preact.js';
import { ApiError, api } from '../api-client.js';
import { formatTime, fromLocalInput, inputValue, toLocalInput } from '../format.js';
import { ListPagination, ListTable, PageError, useListDialog } from '../components/list-page-parts.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { FormButtons, FormError, Input, Switch, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = [
  'model',
  'channel',
  'inputPerMTok',
  'outputPerMTok',
  'cacheReadPerMTok',
  'cacheWritePerMTok',
  'cacheWrite1hPerMTok',
  'effectiveFrom',
  'priceId',
  'force',
];
const EPOCH = Date.parse('1970-01-01T00:00:00Z');

/** A per-million-token price as `$2.5` (up to 9 decimals, no trailing zeros); null → `—`. */
export function formatPerMTok(value) {
  if (value === null || value === undefined) return '—';
  return `$${Number(value).toLocaleString('en-US', { maximumFractionDigits: 9 })}`;
}

/** An `effectiveFrom` time; the epoch (the default) reads `always`. */
export function formatEffectiveFrom(iso) {
  return !iso || Date.parse(iso) === EPOCH ? 'always' : formatTime(iso);
}

/** The PUT body: prices as JSON numbers, blanks left out (cache prices then default to the input price, the 1-hour write price to the cache-write price). */
export function priceBody(values, priceId) {
  const body = {
    model: values.model.trim(),
    inputPerMTok: Number(values.inputPerMTok),
    outputPerMTok: Number(values.outputPerMTok),
  };
  if (values.channel.trim()) body.channel = values.channel.trim();
  if (values.cacheReadPerMTok.trim() !== '') body.cacheReadPerMTok = Number(values.cacheReadPerMTok);
  if (values.cacheWritePerMTok.trim() !== '') body.cacheWritePerMTok = Number(values.cacheWritePerMTok);
  if ((values.cacheWrite1hPerMTok ?? '').trim() !== '') body.cacheWrite1hPerMTok = Number(values.cacheWrite1hPerMTok);
  const from = fromLocalInput(values.effectiveFrom);
  if (values.effectiveFrom && !from) throw new ApiError('effectiveFrom: not a valid date and time', 0, 'effectiveFrom');
  if (from) body.effectiveFrom = from;
  if (priceId) body.priceId = priceId;
  if (values.force) body.force = true;
  return body;
}

/** The prices page. */
export function PricesPage() {
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/prices');
  const { dialog, setDialog, close, saved } = useListDialog(list);
  const prices = list.data?.prices ?? [];
  return html`
    <section>
      <div class="page-head">
        <h2>Prices</h2>
        <small class="muted">USD per million tokens</small>
        <button type="button" data-testid="price-create" onClick=${() => setDialog({ price: null })}>Set price</button>
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search model or channel" label="Search prices" testid="price-search" />
      </div>
      <${PageError} error=${list.error} />
      <${ListTable} name="prices" columns=${10} loading=${list.loading} empty="No prices yet: requests are billed $0."
        head=${html`<tr><th>Model</th><th>Channel</th><th class="num">Input</th><th class="num">Output</th><th class="num">Cache read</th><th class="num">Cache write</th><th class="num">Cache write 1h</th><th>Effective from</th><th>Status</th><th class="actions">Actions</th></tr>`}
        rows=${prices.map(
          (p) => html`<tr key=${p.priceId} data-testid=${`price-row-${p.priceId}`}>
            <td><strong>${p.model}</strong></td>
            <td>${p.channel ?? html`<span class="muted">all</span>`}</td>
            <td class="num">${formatPerMTok(p.inputPerMTok)}</td>
            <td class="num">${formatPerMTok(p.outputPerMTok)}</td>
            <td class="num">${formatPerMTok(p.cacheReadPerMTok ?? p.inputPerMTok)}</td>
            <td class="num">${formatPerMTok(p.cacheWritePerMTok ?? p.inputPerMTok)}</td>
            <td class="num">${formatPerMTok(p.cacheWrite1hPerMTok ?? p.cacheWritePerMTok ?? p.inputPerMTok)}</td>
            <td>${formatEffectiveFrom(p.effectiveFrom)}</td>
            <td data-testid=${`price-status-${p.priceId}`}>${p.status === 'in force' ? html`<strong>in force</strong>` : html`<span class="muted">${p.status}</span>`}</td>
            <td class="actions"><button type="button" class="outline small" data-testid=${`price-edit-${p.priceId}`} onClick=${() => setDialog({ price: p })}>Edit</button></td>
          </tr>`,
        )}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      ${dialog ? html`<${PriceDialog} price=${dialog.price} onClose=${close} onSaved=${saved} />` : null}
    </section>
  `;
}

function PriceDialog({ price, onClose, onSaved }) {
  const editing = Boolean(price);
  const form = useForm({
    model: price?.model ?? '',
    channel: price?.channel ?? '',
    inputPerMTok: inputValue(price?.inputPerMTok),
    outputPerMTok: inputValue(price?.outputPerMTok),
    cacheReadPerMTok: inputValue(price?.cacheReadPerMTok),
    cacheWritePerMTok: inputValue(price?.cacheWritePerMTok),
    cacheWrite1hPerMTok: inputValue(price?.cacheWrite1hPerMTok),
    effectiveFrom: price && Date.parse(price.effectiveFrom) !== EPOCH ? toLocalInput(price.effectiveFrom) : '',
    force: false,
  });
  const save = form.submit(async (values) => {
    await api.put('/prices', priceBody(values, price?.priceId));
    onSaved();
  });
  return html`
    <${ModalDialog} title=${editing ? `Edit price of ${price.model}` : 'Set price'} onClose=${onClose} testid="price-dialog">
      <form onSubmit=${save}>
        <div class="grid">
          <${Input} label="Model (upstream)" name="model" form=${form} testid="price-model" required autofocus />
          <${Input} label="Channel" name="channel" form=${form} testid="price-channel" placeholder="all channels" />
        </div>
        <div class="grid">
          <${Input} label="Input $/1M" name="inputPerMTok" type="number" min="0" step="any" form=${form} testid="price-input" required />
          <${Input} label="Output $/1M" name="outputPerMTok" type="number" min="0" step="any" form=${form} testid="price-output" required />
        </div>
        <div class="grid">
          <${Input} label="Cache read $/1M" name="cacheReadPerMTok" type="number" min="0" step="any" form=${form} testid="price-cache-read" placeholder="= input" />
          <${Input} label="Cache write $/1M" name="cacheWritePerMTok" type="number" min="0" step="any" form=${form} testid="price-cache-write" placeholder="= input" />
        </div>
        <${Input} label="Cache write 1h $/1M (Anthropic)" name="cacheWrite1hPerMTok" type="number" min="0" step="any" form=${form} testid="price-cache-write-1h" placeholder="= cache write" hint="1-hour cache writes; blank = the cache-write price" />
        <${Input} label="Effective from" name="effectiveFrom" type="datetime-local" form=${form} testid="price-effective-from" hint="blank = from now" />
        <${Switch} label="Set even if another entry wins" name="force" form=${form} testid="price-force" />
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel="Save price" testidPrefix="price" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
