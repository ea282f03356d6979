/**
 * The teams of the control plane, as the fold (control-plane-fold.ts) keeps them, with their
 * members and the teams of each user:
 * - TeamCreated upserts the team (a repeated one replaces its settings and keeps its createdAt,
 *   members and disabled flag); TeamUpdated replaces the settings and the disabled flag of a known
 *   team and keeps its members (unknown team: ignored, the caller warns).
 * - TeamMemberSet adds the user to the team or changes their role; TeamMemberRemoved takes them
 *   out. A member of an unknown team, or a removal of a non-member, is ignored (the caller warns);
 *   whether the user exists is the caller's check.
 */
import type { TeamCreated, TeamMemberRemoved, TeamMemberSet, TeamUpdated } from './control-plane-events.ts';
import type { ModelLimit, TeamRecord, TeamRole } from './control-plane-records.ts';

const NO_TEAMS: ReadonlyArray<TeamRecord> = Object.freeze([]);

/** Teams by id and the teams each user belongs to (see the module doc). */
export class TeamRegistry {
  private readonly byId = new Map<string, TeamRecord>();
  private readonly teamIdsByUser = new Map<string, Set<string>>();
  private snapshot: ReadonlyArray<TeamRecord> | undefined;

  /**
   * Applies a TeamCreated or TeamUpdated.
   * @returns a warning when the event was ignored (TeamUpdated of an unknown team), else undefined
   */
  settingsSet(event: TeamCreated | TeamUpdated, updated: boolean): string | undefined {
    const existing = this.byId.get(event.teamId);
    if (updated && !existing) return `TeamUpdated for unknown team ${event.teamId} ignored`;
    this.put({
      teamId: event.teamId,
      name: event.name,
      rpm: event.rpm,
      tpm: event.tpm,
      rpd: event.rpd,
      tpd: event.tpd,
      models: event.models === null ? null : new Set(event.models),
      modelLimits: copyModelLimits(event.modelLimits),
      tags: [...event.tags],
      disabled: 'disabled' in event ? event.disabled : (existing?.disabled ?? false),
      members: existing?.members ?? new Map<string, TeamRole>(),
      createdAt: existing?.createdAt ?? event.occurredAt,
    });
    return undefined;
  }

  /** Applies a TeamMemberSet. @returns a warning when the team is unknown (ignored), else undefined */
  memberSet(event: TeamMemberSet): string | undefined {
    const team = this.byId.get(event.teamId);
    if (!team) return `TeamMemberSet of user ${event.userId} for unknown team ${event.teamId} ignored`;
    const members = new Map(team.members);
    members.set(event.userId, event.role);
    this.put({ ...team, members });
    let teamIds = this.teamIdsByUser.get(event.userId);
    if (!teamIds) this.teamIdsByUser.set(event.userId, (teamIds = new Set<string>()));
    teamIds.add(event.teamId);
    return undefined;
  }

  /** Applies a TeamMemberRemoved. @returns a warning when the team is unknown or the user not a member (ignored) */
  memberRemoved(event: TeamMemberRemoved): string | undefined {
    const team = this.byId.get(event.teamId);
    if (!team?.members.has(event.userId))
      return `TeamMemberRemoved of user ${event.userId} ignored: not a member of ${team ? 'team' : 'unknown team'} ${event.teamId}`;
    const members = new Map(team.members);
    members.delete(event.userId);
    this.put({ ...team, members });
    this.teamIdsByUser.get(event.userId)?.delete(event.teamId);
    return undefined;
  }

  team(teamId: string): TeamRecord | undefined {
    return this.byId.get(teamId);
  }

  /** Every team, in creation order. */
  list(): ReadonlyArray<TeamRecord> {
    return (this.snapshot ??= [...this.byId.values()]);
  }

  /** The teams `userId` is a member of (disabled teams included), in the order joined. */
  ofUser(userId: string): ReadonlyArray<TeamRecord> {
    const teamIds = this.teamIdsByUser.get(userId);
    if (!teamIds || teamIds.size === 0) return NO_TEAMS;
    return [...teamIds].map((teamId) => this.byId.get(teamId)!);
  }

  private put(team: TeamRecord): void {
    this.byId.set(team.teamId, team);
    this.snapshot = undefined;
  }
}

/** Plain copies of per-model limits (an event's records may be avsc class instances). */
export function copyModelLimits(limits: ReadonlyArray<ModelLimit>): ReadonlyArray<ModelLimit> {
  return limits.map(({ model, rpm, tpm, rpd, tpd }) => ({ model, rpm, tpm, rpd, tpd }));
}
