/**
 * The header: product name, the page links (admin pages only for admins), the signed-in user and
 * role, "Change password" and "Sign out".
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { useSession } from '../session-context.js';
import { routeHash } from '../router.js';
import { ChangePasswordDialog } from './change-password-dialog.js';

/** The pages in the nav, in order: `{ page, label, adminOnly }`. */
export const NAV_PAGES = [
  { page: 'keys', label: 'Keys', adminOnly: false },
  { page: 'usage', label: 'Usage', adminOnly: false },
  { page: 'spend', label: 'Spend', adminOnly: false },
  { page: 'teams', label: 'Teams', adminOnly: false },
  { page: 'budgets', label: 'Budgets', adminOnly: true },
  { page: 'users', label: 'Users', adminOnly: true },
  { page: 'channels', label: 'Channels', adminOnly: true },
  { page: 'prices', label: 'Prices', adminOnly: true },
  { page: 'audit', label: 'Audit', adminOnly: true },
];

/** @param {{ currentPage: string, onSignOut: () => void }} props */
export function AppHeader({ currentPage, onSignOut }) {
  const { user, isAdmin } = useSession();
  const [changing, setChanging] = useState(false);
  const pages = NAV_PAGES.filter((p) => isAdmin || !p.adminOnly);
  return html`
    <header class="app-header">
      <nav class="container-fluid">
        <ul>
          <li><a class="brand" href=${routeHash('keys')}>Tollgate</a></li>
          ${pages.map(
            (p) => html`<li key=${p.page}>
              <a href=${routeHash(p.page)} data-testid=${`nav-${p.page}`} aria-current=${currentPage === p.page ? 'page' : undefined}>${p.label}</a>
            </li>`,
          )}
        </ul>
        <ul>
          <li class="who">
            <span data-testid="current-user">${user?.name}</span>
            <span class="role" data-testid="current-role">${user?.role}</span>
          </li>
          <li><button type="button" class="secondary outline small" data-testid="change-password" onClick=${() => setChanging(true)}>Change password</button></li>
          <li><button type="button" class="secondary small" data-testid="sign-out" onClick=${onSignOut}>Sign out</button></li>
        </ul>
      </nav>
      ${changing ? html`<${ChangePasswordDialog} onClose=${() => setChanging(false)} />` : null}
    </header>
  `;
}
