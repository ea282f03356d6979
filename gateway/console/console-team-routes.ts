/**
 * Console team routes (CONSOLE-API.md "Teams"): admins list, create, update (disable included)
 * every team and set or remove its members, through the admin API's commands (same validation,
 * same events); a user lists the teams they are a member of and sees each read-only (a team they
 * are not in answers 404, as if it did not exist). Rows add the members' names, the number of
 * keys of the team and the signed-in user's access to it.
 */
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { presentTeam, type TeamView } from '../control-plane/admin-presenters.ts';
import { createTeam, removeTeamMember, setTeamMember, updateTeam } from '../control-plane/commands.ts';
import { fail } from '../control-plane/commands-common.ts';
import type { TeamRecord } from '../control-plane/control-plane-view.ts';
import type { TeamRole } from '../../schemas/control-plane/control-plane-records.ts';
import {
  CONSOLE_API_PREFIX,
  pageOf,
  paginate,
  queryText,
  requireAdmin,
  runAsUser,
  teamAccess,
  visibleTeams,
  type ConsoleDeps,
  type TeamAccess,
} from './console-context.ts';

/** A team as the console shows it. */
export interface TeamRow extends Omit<TeamView, 'members'> {
  /** Members sorted by user id, with their display name and console login (null when the user is gone or cannot sign in). */
  readonly members: ReadonlyArray<{
    readonly userId: string;
    readonly role: TeamRole;
    readonly name: string | null;
    readonly login: string | null;
  }>;
  /** Keys of the team, revoked ones included. */
  readonly keyCount: number;
  /** The signed-in user's access: admin, team_admin or member. */
  readonly access: TeamAccess;
}

/** Registers `/console/api/teams…` on `app`. */
export function registerConsoleTeamRoutes(
  app: FastifyInstance,
  options: RouteShorthandOptions,
  deps: ConsoleDeps,
): void {
  const prefix = `${CONSOLE_API_PREFIX}/teams`;
  const show = (request: FastifyRequest, teamId: string) => ({
    team: teamRow(deps, request, deps.view.team(teamId) ?? fail(404, `team '${teamId}' not found`, 'id')),
  });
  app.get(prefix, options, async (request) => {
    const q = queryText(request, 'q')?.toLowerCase();
    const teams = visibleTeams(deps, request).filter(
      (t) => q === undefined || t.name.toLowerCase().includes(q) || t.teamId === q,
    );
    const { items, total } = paginate(teams, pageOf(request));
    return { teams: items.map((team) => teamRow(deps, request, team)), total };
  });
  app.get(`${prefix}/:id`, options, async (request) => {
    const teamId = param(request, 'id');
    if (teamAccess(deps, request, teamId) === undefined) fail(404, `team '${teamId}' not found`, 'id');
    return show(request, teamId);
  });
  app.post(prefix, options, async (request, reply) => {
    requireAdmin(request);
    const { teamId } = await runAsUser(deps, request, (ctx) => createTeam(deps.view, request.body, ctx));
    return reply.code(201).send(show(request, teamId));
  });
  app.patch(`${prefix}/:id`, options, async (request) => {
    requireAdmin(request);
    const { teamId } = await runAsUser(deps, request, (ctx) =>
      updateTeam(deps.view, param(request, 'id'), request.body, ctx),
    );
    return show(request, teamId);
  });
  app.put(`${prefix}/:id/members/:userId`, options, async (request) => {
    requireAdmin(request);
    const { teamId } = await runAsUser(deps, request, (ctx) =>
      setTeamMember(deps.view, param(request, 'id'), param(request, 'userId'), request.body ?? {}, ctx),
    );
    return show(request, teamId);
  });
  app.delete(`${prefix}/:id/members/:userId`, options, async (request) => {
    requireAdmin(request);
    const { teamId } = await runAsUser(deps, request, (ctx) =>
      removeTeamMember(deps.view, param(request, 'id'), param(request, 'userId'), ctx),
    );
    return show(request, teamId);
  });
}

/** Shows `team` to the request's user (who must have access to it). */
function teamRow(deps: ConsoleDeps, request: FastifyRequest, team: TeamRecord): TeamRow {
  const view = presentTeam(team);
  return {
    ...view,
    members: view.members.map((member) => {
      const user = deps.view.user(member.userId);
      return { ...member, name: user?.name ?? null, login: user?.login ?? null };
    }),
    keyCount: deps.view.keys().filter((key) => key.teamId === team.teamId).length,
    access: teamAccess(deps, request, team.teamId) ?? 'member',
  };
}

function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string>)[name] ?? '';
}
