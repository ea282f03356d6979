/**
 * The signed-in user, shared with every page through context:
 * `{ user: { userId, name, login, role: 'admin'|'user' }, isAdmin: boolean }`.
 */
import { createContext, useContext } from '/console/vendor/htm-preact.js';

/** Context carrying `{ user, isAdmin }` (null outside a signed-in session). */
export const SessionContext = createContext(null);

/** Hook: the current `{ user, isAdmin }`. */
export function useSession() {
  return useContext(SessionContext) ?? { user: null, isAdmin: false };
}
