/**
 * The control-plane commands behind the admin API and the CLI. Each command validates its input
 * (zod, strict; errors name the field) against the current ControlPlaneView and returns
 * `{ events, result }`: the ControlEvents to append to the config topic, in order, and what to
 * show. Commands never write; the caller appends (node `append`) and then reads the view.
 * Refusals are `CommandError { status: 400 | 404 | 409, message, field? }`.
 */
export {
  CommandError,
  nanoToUsd,
  type CommandContext,
  type CommandResult,
  type CommandSecrets,
} from './commands-common.ts';
export { createUser, updateUser, createUserInput, updateUserInput } from './commands-users.ts';
export { setUserPassword, loginField, passwordField, LOGIN_PATTERN } from './commands-credentials.ts';
export {
  createKey,
  updateKey,
  revokeKey,
  rotateKey,
  requireKey,
  isRevoked,
  MAX_GRACE_SECONDS,
  type MintedKey,
} from './commands-keys.ts';
export { upsertChannel, removeChannel, upsertChannelInput } from './commands-channels.ts';
export { setPrice, setPriceInput } from './commands-prices.ts';
export { createTeam, updateTeam, setTeamMember, removeTeamMember, requireTeam } from './commands-teams.ts';
export { setBudget, removeBudget, requireBudget, DEFAULT_BUDGET_TIME_ZONE } from './commands-budgets.ts';
export {
  createAlertWebhook,
  updateAlertWebhook,
  removeAlertWebhook,
  requireAlertWebhook,
  type CreatedAlertWebhook,
} from './commands-alert-webhooks.ts';
