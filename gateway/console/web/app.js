/**
 * The console's entry point (`/console/assets/app.js`): probes the session, shows the sign-in
 * form when there is none (or when any call answers 401), and otherwise the header and the page
 * the hash names. Admin-only pages are hidden from and refused to the `user` role.
 */
import { html, render, useEffect, useState } from '/console/vendor/htm-preact.js';
import { apiRequest, onUnauthorized, setCsrfToken } from './api-client.js';
import { DEFAULT_PAGE, parseRoute, routeHash, useRoute } from './router.js';
import { SessionContext } from './session-context.js';
import { AppHeader, NAV_PAGES } from './pages/app-header.js';
import { SignInPage } from './pages/sign-in.js';
import { KeysPage } from './pages/keys.js';
import { UsagePage, forgetUsageFilters } from './pages/usage.js';
import { UsageDetailPage } from './pages/usage-detail.js';
import { SpendPage } from './pages/spend.js';
import { UsersPage } from './pages/users.js';
import { ChannelsPage } from './pages/channels.js';
import { PricesPage } from './pages/prices.js';
import { AuditPage } from './pages/audit.js';
import { TeamsPage } from './pages/teams.js';
import { TeamDetailPage } from './pages/team-detail.js';
import { BudgetsPage } from './pages/budgets.js';

const PAGES = {
  keys: KeysPage,
  usage: UsagePage,
  spend: SpendPage,
  teams: TeamsPage,
  budgets: BudgetsPage,
  users: UsersPage,
  channels: ChannelsPage,
  prices: PricesPage,
  audit: AuditPage,
};

function PageView({ route, isAdmin }) {
  const nav = NAV_PAGES.find((p) => p.page === route.page);
  if (!nav)
    return html`<section data-testid="page-not-found"><h2>Page not found</h2><p><a href="#/keys">Go to the keys</a></p></section>`;
  if (nav.adminOnly && !isAdmin)
    return html`<section data-testid="page-forbidden"><h2>Admins only</h2><p>Your account cannot see this page.</p></section>`;
  if (route.page === 'usage' && route.param) return html`<${UsageDetailPage} requestId=${route.param} />`;
  if (route.page === 'teams' && route.param) return html`<${TeamDetailPage} teamId=${route.param} />`;
  const Page = PAGES[route.page];
  return html`<${Page} />`;
}

function SignedInApp({ user, route, onSignOut }) {
  const isAdmin = user.role === 'admin';
  useEffect(() => {
    const label = NAV_PAGES.find((p) => p.page === route.page)?.label ?? 'Console';
    document.title = `${label} · Tollgate`;
  }, [route.page]);
  return html`
    <${SessionContext.Provider} value=${{ user, isAdmin }}>
      <${AppHeader} currentPage=${route.page} onSignOut=${onSignOut} />
      <main class="container-fluid page">
        <${PageView} route=${route} isAdmin=${isAdmin} />
      </main>
    </${SessionContext.Provider}>
  `;
}

function App() {
  const [session, setSession] = useState({ state: 'loading' });
  const route = useRoute();
  const signedIn = (answer) => {
    setCsrfToken(answer.csrfToken);
    setSession({ state: 'signed-in', user: answer.user });
  };
  const signedOut = () => {
    setCsrfToken(null);
    setSession({ state: 'signed-out' });
  };
  const probe = () => {
    setSession({ state: 'loading' });
    apiRequest('GET', '/session', { quiet401: true }).then(signedIn, (error) =>
      error.status === 401 ? signedOut() : setSession({ state: 'error', error }),
    );
  };
  useEffect(() => {
    onUnauthorized(signedOut);
    probe();
  }, []);
  const signOut = () =>
    apiRequest('DELETE', '/session', { quiet401: true })
      .catch(() => null)
      .then(() => {
        window.location.hash = routeHash(DEFAULT_PAGE);
        signedOut();
      });
  const signedInByForm = (answer) => {
    forgetUsageFilters();
    const nav = NAV_PAGES.find((p) => p.page === parseRoute(window.location.hash).page);
    if (!nav || (nav.adminOnly && answer.user.role !== 'admin')) window.location.replace(routeHash(DEFAULT_PAGE));
    signedIn(answer);
  };
  switch (session.state) {
    case 'loading':
      return html`<p class="boot" aria-busy="true">Loading the Tollgate console…</p>`;
    case 'error':
      return html`<main class="sign-in"><article>
        <h1 class="brand">Tollgate</h1>
        <p class="form-error" role="alert" data-testid="page-error">${session.error.message}</p>
        <button type="button" data-testid="retry" onClick=${probe}>Try again</button>
      </article></main>`;
    case 'signed-out':
      return html`<${SignInPage} onSignedIn=${signedInByForm} />`;
    default:
      return html`<${SignedInApp} user=${session.user} route=${route} onSignOut=${signOut} />`;
  }
}

render(html`<${App} />`, document.getElementById('app'));
