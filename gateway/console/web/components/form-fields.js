/**
 * Form state and labelled inputs that show the server's validation message next to the field the
 * error names (`error.field`, dotted paths such as `models.2` match `models`), and any other
 * error in one `form-error` line.
 */
import { html, useEffect, useRef, useState } from '/console/vendor/htm-preact.js';

/** The error's message when it names `name` (exactly, or a child such as `name.2`), else null. */
export function fieldError(error, name) {
  if (!error || typeof error.field !== 'string') return null;
  return error.field === name || error.field.startsWith(`${name}.`) ? error.message : null;
}

/**
 * Hook: form values (strings and booleans keyed by field name), the last submit error and a
 * pending flag.
 * `bind(name)` → an input handler; `submit(action)` → an onSubmit handler that calls
 * `await action(values)` and keeps what it throws in `error` (null again on the next submit).
 */
export function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState(null);
  const [pending, setPending] = useState(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const bind = (name) => (event) => {
    const target = event.currentTarget;
    const value = target.type === 'checkbox' ? target.checked : target.value;
    setValues((v) => ({ ...v, [name]: value }));
  };
  const submit = (action) => async (event) => {
    event.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      await action(values);
    } catch (caught) {
      if (mounted.current) setError(caught);
    } finally {
      if (mounted.current) setPending(false);
    }
  };
  return { values, setValues, error, setError, pending, bind, submit };
}

function helpText(form, name, hint) {
  const message = fieldError(form.error, name);
  if (message) return html`<small class="field-error" data-testid=${`field-error-${name}`}>${message}</small>`;
  return hint ? html`<small>${hint}</small>` : null;
}

/** A labelled `<input>` bound to `form.values[name]`; extra props go to the input. */
export function Input({ label, name, form, hint, testid, type = 'text', ...attrs }) {
  const invalid = fieldError(form.error, name) ? 'true' : undefined;
  return html`
    <label>
      ${label}
      <input name=${name} type=${type} value=${form.values[name] ?? ''} onInput=${form.bind(name)} aria-invalid=${invalid} data-testid=${testid} ...${attrs} />
      ${helpText(form, name, hint)}
    </label>
  `;
}

/** A labelled `<textarea>` bound to `form.values[name]`. */
export function TextArea({ label, name, form, hint, testid, ...attrs }) {
  const invalid = fieldError(form.error, name) ? 'true' : undefined;
  return html`
    <label>
      ${label}
      <textarea name=${name} value=${form.values[name] ?? ''} onInput=${form.bind(name)} aria-invalid=${invalid} data-testid=${testid} ...${attrs}></textarea>
      ${helpText(form, name, hint)}
    </label>
  `;
}

/**
 * A labelled `<select>` bound to `form.values[name]`.
 * @param {{ options: Array<{ value: string, label: string }>, onChoose?: (value: string) => void }} props
 *   `onChoose` replaces the default binding (to update other fields too).
 */
export function Select({ label, name, form, hint, testid, options, onChoose, ...attrs }) {
  const invalid = fieldError(form.error, name) ? 'true' : undefined;
  const onChange = onChoose ? (event) => onChoose(event.currentTarget.value) : form.bind(name);
  return html`
    <label>
      ${label}
      <select name=${name} value=${form.values[name] ?? ''} onChange=${onChange} aria-invalid=${invalid} data-testid=${testid} ...${attrs}>
        ${options.map((o) => html`<option value=${o.value} key=${o.value}>${o.label}</option>`)}
      </select>
      ${helpText(form, name, hint)}
    </label>
  `;
}

/** A labelled switch (checkbox) bound to the boolean `form.values[name]`. */
export function Switch({ label, name, form, testid }) {
  return html`
    <label class="switch-label">
      <input name=${name} type="checkbox" role="switch" checked=${Boolean(form.values[name])} onChange=${form.bind(name)} data-testid=${testid} />
      ${label}
    </label>
    ${helpText(form, name)}
  `;
}

/**
 * The form's error when no listed field shows it (no `field`, or a field not in `fields`).
 * @param {{ error: Error|null, fields: string[] }} props
 */
export function FormError({ error, fields }) {
  if (!error) return null;
  if (fields.some((name) => fieldError(error, name))) return null;
  return html`<p class="form-error" role="alert" data-testid="form-error">${error.message}</p>`;
}

/** Dialog footer: a Cancel button and a submit button showing `busy` while pending. */
export function FormButtons({ form, submitLabel, testidPrefix, onCancel }) {
  return html`
    <footer>
      <button type="button" class="secondary" data-testid=${`${testidPrefix}-cancel`} onClick=${onCancel}>Cancel</button>
      <button type="submit" data-testid=${`${testidPrefix}-submit`} aria-busy=${form.pending ? 'true' : undefined} disabled=${form.pending}>${submitLabel}</button>
    </footer>
  `;
}
