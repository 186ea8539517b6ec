import { createHmac } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { blockActions, slashCommand, socketEnvelope, viewSubmission } from './payloads.js';
import { signSlackRequest } from './signer.js';

describe('signSlackRequest', () => {
  it('produces v0=HMAC-SHA256 of v0:timestamp:body, as Slack documents', () => {
    const headers = signSlackRequest({ signingSecret: 'secret', body: 'a=1', timestamp: 1_700_000_000 });
    const expected = createHmac('sha256', 'secret').update('v0:1700000000:a=1').digest('hex');
    expect(headers).toEqual({
      'x-slack-signature': `v0=${expected}`,
      'x-slack-request-timestamp': '1700000000',
      'content-type': 'application/x-www-form-urlencoded',
    });
  });

  it('is accepted by Bolt’s own verifier, and a changed body is not', () => {
    const body = slashCommand({ text: 'logs 42 --last 2h' }).body;
    const nowSeconds = 1_800_000_000;
    const signed = signSlackRequest({ signingSecret: 'shh-secret-123', body, timestamp: nowSeconds });
    const headers = {
      'x-slack-signature': signed['x-slack-signature'],
      'x-slack-request-timestamp': nowSeconds,
    };
    const verify = (raw: string) =>
      verifySlackRequest({
        signingSecret: 'shh-secret-123',
        body: raw,
        headers,
        nowMilliseconds: nowSeconds * 1000,
      });
    expect(() => verify(body)).not.toThrow();
    expect(() => verify(`${body}x`)).toThrow(/signature mismatch/);
  });
});

describe('payload builders', () => {
  it('form-encode a slash command field by field', () => {
    const request = slashCommand({ text: 'dns “my zone” & more', userId: 'U0LEAD', channelId: 'C0INCIDENT' });
    const fields = Object.fromEntries(new URLSearchParams(request.body));
    expect(fields).toMatchObject({
      command: '/edge',
      text: 'dns “my zone” & more',
      user_id: 'U0LEAD',
      channel_id: 'C0INCIDENT',
    });
    expect(fields).toEqual(request.payload);
    expect(request.payload.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
  });

  it('put interactive payloads in a payload= JSON field', () => {
    const click = blockActions({
      actionId: 'approval.approve',
      value: 'req-1',
      messageTs: '1700000000.000100',
    });
    const decoded: unknown = JSON.parse(new URLSearchParams(click.body).get('payload') ?? '');
    expect(decoded).toEqual(click.payload);
    expect(click.payload.container).toMatchObject({ type: 'message', message_ts: '1700000000.000100' });
    expect(click.payload.actions[0]).toMatchObject({
      type: 'button',
      action_id: 'approval.approve',
      value: 'req-1',
    });
  });

  it('wrap requests in Socket Mode envelopes that accept a response only where Slack does', () => {
    expect(socketEnvelope(slashCommand()).accepts_response_payload).toBe(true);
    expect(socketEnvelope(viewSubmission({ callbackId: 'x' })).accepts_response_payload).toBe(true);
    expect(socketEnvelope(blockActions({ actionId: 'x' })).accepts_response_payload).toBe(false);
    expect(socketEnvelope(blockActions({ actionId: 'x' })).type).toBe('interactive');
  });
});
