/**
 * The sign-in form: login and password → `POST /session`; shows the server's message on 401
 * (bad credentials) and 429 (too many attempts, with the wait from `retry-after`).
 */
import { html } from '/console/vendor/htm-preact.js';
import { apiRequest } from '../api-client.js';
import { useForm } from '../components/form-fields.js';

/** Message for a failed sign-in: the server's text, plus the wait on a 429. */
export function signInMessage(error) {
  if (error.status === 429 && error.retryAfter !== undefined && !/\d/.test(error.message)) {
    return `${error.message} (try again in ${error.retryAfter} s)`;
  }
  return error.message;
}

/**
 * @param {{ onSignedIn: (session: { user: object, csrfToken: string }) => void }} props
 *   called with the `POST /session` answer.
 */
export function SignInPage({ onSignedIn }) {
  const form = useForm({ login: '', password: '' });
  const signIn = form.submit(async (values) => {
    const session = await apiRequest('POST', '/session', {
      body: { login: values.login, password: values.password },
      quiet401: true,
    });
    onSignedIn(session);
  });
  return html`
    <main class="sign-in">
      <article>
        <header>
          <h1 class="brand">Tollgate</h1>
          <p>Sign in to the console</p>
        </header>
        <form onSubmit=${signIn}>
          <label>
            Login
            <input name="login" autocomplete="username" required autofocus value=${form.values.login} onInput=${form.bind('login')} data-testid="signin-login" />
          </label>
          <label>
            Password
            <input name="password" type="password" autocomplete="current-password" required value=${form.values.password} onInput=${form.bind('password')} data-testid="signin-password" />
          </label>
          ${form.error ? html`<p class="form-error" role="alert" data-testid="signin-error">${signInMessage(form.error)}</p>` : null}
          <button type="submit" data-testid="signin-submit" aria-busy=${form.pending ? 'true' : undefined} disabled=${form.pending}>Sign in</button>
        </form>
      </article>
    </main>
  `;
}
