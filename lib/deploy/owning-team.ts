import { BadRequest } from '../errors';
import type { User } from '../../tables/users';
import { getTeamAndMember, readMemberships } from '../../tables/teams';

/** The team an application inference profile is billed to (its cost allocation tag). */
export interface OwningTeam {
  id: string;
  name: string;
}

/**
 * Whose Bedrock spend an application profile is: the team named in the request, which the caller
 * must belong to (an admin too: a tag bills a team, so only its members may put its name on a bill),
 * else the caller's team when they are in exactly one. A caller in several teams names one, because
 * guessing would split the AWS bill wrongly without anyone noticing; a caller in none bills no team.
 */
export async function owningTeam(user: User, teamId: string | undefined): Promise<OwningTeam | undefined> {
  if (teamId) {
    const { team, member } = await getTeamAndMember(teamId, user.id);
    if (!team || team.deleting_since) throw new BadRequest("Invalid field 'team_id': no such team");
    if (!member) {
      throw new BadRequest("Invalid field 'team_id': you are not a member of this team", 'Only its members may bill a team; an admin adds you first');
    }
    return { id: team.id, name: team.name };
  }
  const memberships = await readMemberships(user.id);
  if (memberships.length > 1) {
    throw new BadRequest(
      `You belong to ${memberships.length} teams: name the one this profile bills with team_id (${memberships.map((m) => `"${m.team_id}" (${m.team.name})`).join(', ')})`,
    );
  }
  const only = memberships[0];
  return only ? { id: only.team_id, name: only.team.name } : undefined;
}
