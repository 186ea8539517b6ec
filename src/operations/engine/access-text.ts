/**
 * The access policy's decisions, written for people: the one place a denial becomes a sentence
 * (the engine's refusal, the approval gate's refusal, whoami and the audit row all read it here).
 */
import type { Decision, Denial, Grounds } from '../../policy/authorize.js';
import type { AccessExplanation } from '../../policy/explain.js';
import type { PolicyLabel } from '../../policy/schema.js';
import {
  channelRef,
  joinMarkup,
  type Markup,
  markupToPlain,
  md,
  mention,
  nest,
  trusted,
} from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import { counted } from '../../reply/words.js';

const list = (values: readonly string[]) => values.join(', ');
const channels = (ids: readonly string[]) => joinMarkup(ids.map(channelRef), ', ');
/** Users as mentions; a user group's id as Slack links it. */
const people = (ids: readonly string[]) =>
  joinMarkup(
    ids.map((id) =>
      id.startsWith('S') ? trusted(`<!subteam^${id.replace(/[^A-Z0-9]/gi, '')}>`) : mention(id),
    ),
    ', ',
  );

function groundsText(operation: string, grounds: Grounds): string {
  switch (grounds.code) {
    case 'always':
      return `${operation} is always allowed`;
    case 'built-in':
      return 'the built-in policy lets everyone run every operation';
    case 'granted':
      return `granted to ${list(grounds.roles)} by ${grounds.grant}`;
  }
}

/** The policy as a refusal names it: by its owner when it has one, never by its file's path. */
function policyNamed(policy: PolicyLabel): Markup {
  switch (policy.origin) {
    case 'default':
      return trusted('the built-in policy');
    case 'demo':
      return trusted('the console demo policy');
    case 'file':
      return policy.owner ? md`the policy kept by ${nest(ownerRef(policy.owner))}` : trusted('the policy');
  }
}

/** A Slack user or channel id as a mention, anything else as the words it is. */
function ownerRef(owner: string): Markup {
  if (/^[UW][A-Z0-9]{2,}$/.test(owner)) return mention(owner);
  if (/^C[A-Z0-9]{2,}$/.test(owner)) return channelRef(owner);
  return md`${owner}`;
}

/** Who to ask to change the policy. */
const keeper = (policy: PolicyLabel): Markup =>
  policy.origin === 'file' && policy.owner ? ownerRef(policy.owner) : trusted('whoever maintains the policy');

/** What refused the operation and what to do about it, as one clause without a full stop. */
export function denialText(operation: string, denial: Denial): Markup {
  switch (denial.code) {
    case 'outside-policy-channels':
      return md`/edge works only in ${nest(channels(denial.channels))}; ask there`;
    case 'no-grant':
      return md`no grant in ${nest(policyNamed(denial.policy))} allows ${operation}; ask ${nest(keeper(denial.policy))} to add one`;
    case 'not-in-role': {
      const note =
        denial.unread.length > 0
          ? md` (Slack did not answer whether you are in ${list(denial.unread)}; try again in a minute)`
          : trusted('');
      const ask =
        denial.helpers.length > 0 ? people(denial.helpers) : trusted('whoever maintains the policy');
      return md`${operation} is granted to ${list(denial.roles)}, and you are ${denial.roles.length > 1 ? 'in none of them' : 'not in it'}; ask ${nest(ask)} for help${nest(note)}`;
    }
    case 'grant-channels':
      return md`you may run ${operation} only in ${nest(channels(denial.channels))} (${list(denial.grants)})`;
    case 'built-in-has-no-approvers':
      return md`${operation} needs approval, and the built-in policy has no approvers. To use it, write a policy file (edgeops.policy.yml, or the path in EDGEOPS_POLICY) with a role listing the approvers' Slack ids and an approvals rule naming that role, e.g. approvals: { rules: [{ ops: [${operation}], approvers: [leads] }] }`;
    case 'no-approvers':
      return md`${operation} needs approval from ${list(denial.approverRoles)}, and no one is in ${denial.approverRoles.length > 1 ? 'those roles' : 'that role'}; ask ${nest(keeper(denial.policy))} to add approvers to it`;
    case 'too-few-approvers': {
      const counting = denial.groups.length > 0 ? ` (counting the members of ${list(denial.groups)})` : '';
      return md`${operation} needs ${counted(denial.required, 'approval')} from ${list(denial.approverRoles)}, and only ${counted(denial.others, 'approver')} other than you ${denial.others === 1 ? 'is' : 'are'} listed${counting}; you cannot approve your own request`;
    }
  }
}

/** Why the decision went the way it did, as whoami and the audit log show it. */
export function decisionText(decision: Decision): Markup {
  if (!decision.allowed) return denialText(decision.operation, decision.denial);
  const why = groundsText(decision.operation, decision.grounds);
  const approval = decision.approval;
  return approval
    ? md`${why}; it needs ${counted(approval.required, 'approval')} from ${list(approval.approvers)}`
    : md`${why}`;
}

/** The sentence a refused user reads. */
export function denialSentence(decision: Decision): Markup {
  return md`Not allowed: ${nest(decisionText(decision))}.`;
}

/** The reply a refused user gets, wherever the refusal happened. */
export function denialReply(decision: Decision): Reply {
  const sentence = denialSentence(decision);
  return ephemeral(markupToPlain(sentence), [{ type: 'text', text: md`:no_entry: ${nest(sentence)}` }]);
}

/** `/edge whoami`: the caller's roles and, for every operation, whether they may run it here. */
export function whoamiReply(
  caller: { userId: string; channelId: string },
  explanation: AccessExplanation,
  /** What people type for each operation id, e.g. `dns.list` → `/edge dns`. */
  commandOf: (operation: string) => string | undefined,
): Reply {
  const lines = explanation.operations.map(({ operation, decision: d }) => {
    const mark = d.allowed ? ':white_check_mark:' : ':no_entry_sign:';
    const approval =
      d.allowed && d.approval
        ? md` — needs ${counted(d.approval.required, 'approval')} from ${d.approval.approvers.join(', ')}`
        : trusted('');
    const typed = commandOf(operation);
    const name = typed ? md`\`${typed}\` (${operation})` : md`\`${operation}\``;
    const refusal = d.allowed ? trusted('') : md` — ${nest(denialText(d.operation, d.denial))}`;
    return md`${nest(trusted(mark))} ${nest(name)}${nest(approval)}${nest(refusal)}`;
  });
  const roles = explanation.roles.length > 0 ? explanation.roles.join(', ') : '(none)';
  return ephemeral(`Who you are to edgeops; roles: ${roles}`, [
    { type: 'header', text: 'Who you are to edgeops' },
    {
      type: 'fields',
      fields: [
        { label: 'User', value: mention(caller.userId) },
        { label: 'Roles', value: md`${roles}` },
        { label: 'Policy', value: policyNamed(explanation.policy) },
        {
          label: 'This channel',
          value: md`${nest(channelRef(caller.channelId))}${explanation.channelAllowed ? '' : ' (not allowed)'}`,
        },
      ],
    },
    { type: 'text', text: joinMarkup(lines) },
    {
      type: 'context',
      text: trusted('`help`, `whoami` and `context` (showing this channel’s defaults) are always allowed.'),
    },
  ]);
}
