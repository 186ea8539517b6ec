/**
 * The access policy's decisions, written for people: the one place a denial becomes a sentence
 * (the engine's refusal, the approval gate's refusal, whoami and the audit row all read it here).
 */
import type { Decision, Denial, Grounds } from '../policy/authorize.js';
import type { AccessExplanation } from '../policy/explain.js';
import { md, nest, trusted } from '../reply/markup.js';
import { ephemeral, type Reply } from '../reply/model.js';

const list = (values: readonly string[]) => values.join(', ');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

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

/** What refused the operation and what to do about it, as one clause without a full stop. */
export function denialText(operation: string, denial: Denial): string {
  switch (denial.code) {
    case 'outside-policy-channels':
      return `/edge works only in ${list(denial.channels)}; ask there`;
    case 'no-grant':
      return `no grant in ${denial.source} allows ${operation}; ask whoever maintains that file to add one`;
    case 'not-in-role': {
      const note =
        denial.unread.length > 0
          ? ` (Slack did not answer whether you are in ${list(denial.unread)}; try again in a minute)`
          : '';
      const ask = denial.helpers.length > 0 ? list(denial.helpers) : 'whoever maintains the policy';
      return `${operation} is granted to ${list(denial.roles)}, and you are ${denial.roles.length > 1 ? 'in none of them' : 'not in it'}; ask ${ask} for help${note}`;
    }
    case 'grant-channels':
      return `you may run ${operation} only in ${list(denial.channels)} (${list(denial.grants)})`;
    case 'built-in-has-no-approvers':
      return `${operation} needs approval, and the built-in policy has no approvers. To use it, write a policy file (edgeops.policy.yml, or the path in EDGEOPS_POLICY) with a role listing the approvers' Slack ids and an approvals rule naming that role, e.g. approvals: { rules: [{ ops: [${operation}], approvers: [leads] }] }`;
    case 'no-approvers':
      return `${operation} needs approval from ${list(denial.approverRoles)}, and no one is in ${denial.approverRoles.length > 1 ? 'those roles' : 'that role'}; add approvers to it in ${denial.source}`;
    case 'too-few-approvers': {
      const counting = denial.groups.length > 0 ? ` (counting the members of ${list(denial.groups)})` : '';
      return `${operation} needs ${plural(denial.required, 'approval')} from ${list(denial.approverRoles)}, and only ${plural(denial.others, 'approver')} other than you ${denial.others === 1 ? 'is' : 'are'} listed${counting}; you cannot approve your own request`;
    }
  }
}

/** Why the decision went the way it did, as whoami and the audit log show it. */
export function decisionText(decision: Decision): string {
  if (!decision.allowed) return denialText(decision.operation, decision.denial);
  const why = groundsText(decision.operation, decision.grounds);
  const approval = decision.approval;
  return approval
    ? `${why}; it needs ${plural(approval.required, 'approval')} from ${list(approval.approvers)}`
    : why;
}

/** The sentence a refused user reads. */
export function denialSentence(decision: Decision): string {
  return `Not allowed: ${decisionText(decision)}.`;
}

/** The reply a refused user gets, wherever the refusal happened. */
export function denialReply(decision: Decision): Reply {
  const sentence = denialSentence(decision);
  return ephemeral(sentence, [{ type: 'text', text: md`:no_entry: ${sentence}` }]);
}

/** `/edge whoami`: the caller's roles and, for every operation, whether they may run it here. */
export function whoamiReply(
  caller: { userId: string; channelId: string },
  explanation: AccessExplanation,
): Reply {
  const lines = explanation.operations.map(({ operation, decision: d }) => {
    const mark = d.allowed ? ':white_check_mark:' : ':no_entry_sign:';
    const approval =
      d.allowed && d.approval
        ? md` — needs ${d.approval.required} approval(s) from ${d.approval.approvers.join(', ')}`
        : trusted('');
    return md`${nest(trusted(mark))} \`${operation}\`${nest(approval)}${d.allowed ? '' : ` — ${denialText(d.operation, d.denial)}`}`;
  });
  const roles = explanation.roles.length > 0 ? explanation.roles.join(', ') : '(none)';
  return ephemeral(`You are ${caller.userId}; roles: ${roles}`, [
    { type: 'header', text: 'Who you are to edgeops' },
    {
      type: 'fields',
      fields: [
        { label: 'User', value: md`${caller.userId}` },
        { label: 'Roles', value: md`${roles}` },
        { label: 'Policy', value: md`${explanation.source}` },
        {
          label: 'This channel',
          value: md`${caller.channelId}${explanation.channelAllowed ? '' : ' (not allowed)'}`,
        },
      ],
    },
    { type: 'text', text: trusted(lines.join('\n')) },
    {
      type: 'context',
      text: trusted('`help`, `whoami` and `context` (showing this channel’s defaults) are always allowed.'),
    },
  ]);
}
