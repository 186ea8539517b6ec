import { WebClient } from '@slack/web-api';

/** Members of a Slack user group, read with usergroups.users.list (scope usergroups:read). */
export function createSlackGroupFetcher(options: {
  token: string;
  apiUrl: string;
}): (groupId: string) => Promise<readonly string[]> {
  const client = new WebClient(options.token, { slackApiUrl: options.apiUrl, retryConfig: { retries: 2 } });
  return async (groupId) => {
    const response = await client.usergroups.users.list({ usergroup: groupId });
    return response.users ?? [];
  };
}
