/**
 * Team commands: create, update (disable included: teams are disabled, never deleted, like users),
 * and set or remove a member. Each validates its input (zod, strict) against the current
 * ControlPlaneView and returns the events to append; nothing is written here.
 */
import { z } from 'zod';
import type { TeamUpdated } from '../../schemas/control-plane/control-plane-events.ts';
import type { ControlPlaneView, TeamRecord } from './control-plane-view.ts';
import {
  eventHeader,
  fail,
  limitField,
  modelsField,
  nameField,
  newEntityId,
  parseInput,
  requireSomeField,
  type CommandContext,
  type CommandResult,
} from './commands-common.ts';
import { modelLimitsField, tagsField } from './commands-limits-and-tags.ts';

/**
 * Body of `createTeam`: `{ name, rpm?, tpm?, rpd?, tpd? (positive integers or null = unlimited),
 * models? (allowlist bounding every key of the team; null = every model), modelLimits?, tags? }`.
 */
export const createTeamInput = z
  .object({
    name: nameField,
    rpm: limitField.default(null),
    tpm: limitField.default(null),
    rpd: limitField.default(null),
    tpd: limitField.default(null),
    models: modelsField.default(null),
    modelLimits: modelLimitsField.default([]),
    tags: tagsField.default([]),
  })
  .strict();

/** Body of `updateTeam`: any of createTeam's fields (null clears a limit or the allowlist), and `disabled`. */
export const updateTeamInput = z
  .object({
    name: nameField.optional(),
    rpm: limitField.optional(),
    tpm: limitField.optional(),
    rpd: limitField.optional(),
    tpd: limitField.optional(),
    models: modelsField.optional(),
    modelLimits: modelLimitsField.optional(),
    tags: tagsField.optional(),
    disabled: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict();

const TEAM_ROLES = ['team_admin', 'member'] as const;

/** Body of `setTeamMember`: `{ role?: 'team_admin' | 'member' }` (default member). */
export const setTeamMemberInput = z
  .object({ role: z.enum(TEAM_ROLES, { error: "must be 'team_admin' or 'member'" }).default('member') })
  .strict();

/**
 * Creates a team with a fresh id (`team_…`) and no members.
 * @returns one TeamCreated event; result `{ teamId }`.
 * @throws CommandError 400 bad input (field named: a tag not `name=value`, a model limited twice, …).
 */
export function createTeam(
  _view: ControlPlaneView,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ teamId: string }> {
  const body = parseInput(createTeamInput, input);
  const teamId = newEntityId('team_');
  return { events: [{ type: 'TeamCreated', event: { ...eventHeader(ctx), teamId, ...body } }], result: { teamId } };
}

/**
 * Updates a team: the given fields replace the current ones; the rest, and the members, are kept.
 * `{ disabled: true }` disables it: every key of the team is refused until it is enabled again.
 * @returns one TeamUpdated event with the full new state; result `{ teamId }`.
 * @throws CommandError 404 unknown team (field `id`), 400 bad input or an empty body.
 */
export function updateTeam(
  view: ControlPlaneView,
  teamId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ teamId: string }> {
  const current = view.team(teamId) ?? fail(404, `team '${teamId}' not found`, 'id');
  const body = parseInput(updateTeamInput, input);
  requireSomeField(body);
  const event: TeamUpdated = {
    ...eventHeader(ctx),
    teamId,
    name: body.name ?? current.name,
    rpm: body.rpm === undefined ? current.rpm : body.rpm,
    tpm: body.tpm === undefined ? current.tpm : body.tpm,
    rpd: body.rpd === undefined ? current.rpd : body.rpd,
    tpd: body.tpd === undefined ? current.tpd : body.tpd,
    models: body.models === undefined ? (current.models === null ? null : [...current.models]) : body.models,
    modelLimits: body.modelLimits ?? current.modelLimits,
    tags: body.tags ?? current.tags,
    disabled: body.disabled ?? current.disabled,
  };
  return { events: [{ type: 'TeamUpdated', event }], result: { teamId } };
}

/**
 * Makes user `userId` a member of team `teamId` with `role`, or changes their role.
 * @returns one TeamMemberSet event; result `{ teamId, userId }`.
 * @throws CommandError 400 unknown team (field `teamId`) or user (field `userId`), bad role.
 */
export function setTeamMember(
  view: ControlPlaneView,
  teamId: string,
  userId: string,
  input: unknown,
  ctx: CommandContext,
): CommandResult<{ teamId: string; userId: string }> {
  requireTeam(view, teamId, 'teamId');
  if (!view.user(userId)) fail(400, `userId: user '${userId}' does not exist`, 'userId');
  const { role } = parseInput(setTeamMemberInput, input);
  return {
    events: [{ type: 'TeamMemberSet', event: { ...eventHeader(ctx), teamId, userId, role } }],
    result: { teamId, userId },
  };
}

/**
 * Takes user `userId` out of team `teamId`.
 * @returns one TeamMemberRemoved event; result `{ teamId, userId }`.
 * @throws CommandError 400 unknown team (field `teamId`), 404 the user is not a member (field `userId`).
 */
export function removeTeamMember(
  view: ControlPlaneView,
  teamId: string,
  userId: string,
  ctx: CommandContext,
): CommandResult<{ teamId: string; userId: string }> {
  const team = requireTeam(view, teamId, 'teamId');
  if (!team.members.has(userId)) fail(404, `user '${userId}' is not a member of team '${teamId}'`, 'userId');
  return {
    events: [{ type: 'TeamMemberRemoved', event: { ...eventHeader(ctx), teamId, userId } }],
    result: { teamId, userId },
  };
}

/**
 * The team `teamId`, named by an input field.
 * @throws CommandError 400 `<field>: team '<id>' does not exist` on `field`.
 */
export function requireTeam(view: ControlPlaneView, teamId: string, field: string): TeamRecord {
  return view.team(teamId) ?? fail(400, `${field}: team '${teamId}' does not exist`, field);
}
