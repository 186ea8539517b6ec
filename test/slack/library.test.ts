/**
 * The New video library form as Slack shows it, and where the library's keys go in Slack. How
 * the form's submissions are checked, what the channel is told and where the keys go are tested
 * through the engine in test/operations/library.test.ts.
 */
import type { ViewStateValue } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LIBRARY_FIELDS as F } from '../../src/operations/library.js';
import { checkViewLimits, formatSchemaErrors, validateModal } from '../support/block-kit.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  checkboxes,
  DEFAULT_CHANNEL_ID,
  DEFAULT_USER_ID,
  numberInput,
  staticSelect,
  textInput,
} from '../support/payloads.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const ViewSchema = z.looseObject({
  callback_id: z.string(),
  private_metadata: z.string(),
  blocks: z.array(z.looseObject({ block_id: z.string().optional(), element: z.looseObject({}).optional() })),
});
const OpenSchema = z.looseObject({ trigger_id: z.string(), view: ViewSchema });
type OpenedView = z.infer<typeof ViewSchema>;

/** Sends `/edge library create …` and returns the view it opened with the command's trigger. */
async function openForm(text: string): Promise<{ view: OpenedView; triggerId: string }> {
  const seen = new Set(h.fake.callsTo('views.open'));
  const { triggerId } = await h.command(text);
  const call = await h.fake.waitFor('views.open', (c) => !seen.has(c), 5_000);
  const opened = OpenSchema.parse(call.args);
  return { view: opened.view, triggerId: opened.trigger_id === triggerId ? triggerId : '' };
}

const multiSelect = (values: string[]): ViewStateValue => ({
  type: 'multi_static_select',
  selected_options: values.map((value) => ({
    text: { type: 'plain_text', text: value, emoji: true },
    value,
  })),
});

/** The form as a user leaves it after typing a name: the initial values. */
const defaults = (name: string): Record<string, ViewStateValue> => ({
  [F.name]: textInput(name),
  [F.regions]: multiSelect([]),
  [F.playerVersion]: numberInput(null),
  [F.tier]: staticSelect('free', 'Free'),
  [F.jit]: checkboxes([]),
  [F.codecs]: checkboxes(['x264']),
  [F.resolutions]: checkboxes(['720p', '1080p']),
  [F.playback]: checkboxes(['keep-originals', 'direct-play']),
  [F.transcribing]: checkboxes([]),
  [F.captionLanguages]: multiSelect([]),
  [F.smart]: checkboxes([]),
});

/** Submits the opened view with `values` (field id → state) and returns the acknowledgement body. */
async function submit(view: OpenedView, values: Record<string, ViewStateValue>) {
  const ack = await h.submitView(view.callback_id, view.private_metadata, values);
  expect(ack.status).toBe(200);
  return ack.body;
}

const initialOf = (view: OpenedView, id: string) =>
  view.blocks.find((block) => block.block_id === id)?.element;

const textOfCall = (call: RecordedCall) => JSON.stringify(call.args);

describe('/edge library create', () => {
  it('opens the New video library modal with its trigger before anything slow, with the name filled in', async () => {
    const platformCalls = h.sandbox.requests.all().length;
    const { view, triggerId } = await openForm('library create "Product demos"');
    expect(triggerId).not.toBe('');
    // Nothing that waits on the network comes between the command and the form (Slack's 3 s).
    expect(h.sandbox.requests.all().length).toBe(platformCalls);
    expect(formatSchemaErrors(validateModal(view))).toBe('');
    expect(checkViewLimits(view)).toEqual([]);
    expect(view.callback_id).toBe('library.create:form');
    expect(initialOf(view, F.name)).toMatchObject({ initial_value: 'Product demos' });
    const ids = view.blocks.map((block) => block.block_id).filter(Boolean);
    expect(ids).toEqual(Object.values(F));
  });

  it('sends the new library’s keys to Slack in the requester’s DM alone: no other call, response or upload', async () => {
    const { view } = await openForm('library create Launch');
    const channelPosts = new Set(h.fake.callsTo('chat.postMessage'));
    const ack = await submit(view, {
      ...defaults('Launch videos'),
      [F.regions]: multiSelect(['DE', 'NY']),
      [F.tier]: staticSelect('premium'),
      [F.jit]: checkboxes(['on']),
      [F.codecs]: checkboxes(['x264', 'vp9']),
      [F.resolutions]: checkboxes(['480p', '1080p']),
      [F.smart]: checkboxes(['titles']),
    });
    expect(ack).toBeUndefined();
    const dmChannel = h.fake.dmChannelFor(DEFAULT_USER_ID);
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      (c) => !channelPosts.has(c) && c.args.channel === dmChannel,
      5_000,
    );
    await h.fake.waitFor(
      'chat.postMessage',
      (c) => !channelPosts.has(c) && c.args.channel === DEFAULT_CHANNEL_ID,
      5_000,
    );
    const keys = [...textOfCall(dm).matchAll(/`([0-9a-f-]{36,})`/g)].map((match) => match[1]!);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      // Every payload Slack received: the key is in the DM and nowhere else.
      const holders = h.fake.calls.filter((call) => textOfCall(call).includes(key));
      expect(holders).toEqual([dm]);
      expect(h.fake.responses.some((post) => JSON.stringify(post.body).includes(key))).toBe(false);
      expect(h.fake.uploads.some((file) => file.bytes.toString('utf8').includes(key))).toBe(false);
    }
  });

  it('says so in the channel when the keys cannot be sent by DM, and shows them nowhere else', async () => {
    const { view } = await openForm('library create');
    const posts = new Set(h.fake.callsTo('chat.postMessage'));
    h.fake.fail('conversations.open', { error: 'user_disabled', times: 1 });
    await submit(view, defaults('Undeliverable'));
    const posted = await h.fake.waitFor(
      'chat.postMessage',
      (c) => !posts.has(c) && c.args.channel === DEFAULT_CHANNEL_ID,
      5_000,
    );
    expect(textOfCall(posted)).toContain('could not be sent to <@U0YOU> by direct message');
    const fingerprints = [...textOfCall(posted).matchAll(/…([0-9a-f]{4})/g)].map((match) => match[1]);
    expect(fingerprints).toHaveLength(2);
    expect(h.fake.callsTo('chat.postMessage').filter((c) => !posts.has(c))).toEqual([posted]);
  });

  it('answers a platform refusal with an ephemeral whose button reopens the form as a modal Slack accepts', async () => {
    const { view } = await openForm('library create');
    h.sandbox.faults.set('videolibrary.create', {
      status: 400,
      body: {
        ErrorKey: 'videoLibrary.name_taken',
        Field: 'Name',
        Message: 'A video library with this name already exists',
      },
      times: 1,
    });
    const ephemerals = new Set(h.fake.callsTo('chat.postEphemeral'));
    const ack = await submit(view, {
      ...defaults('Existing library'),
      [F.regions]: multiSelect(['SG']),
      [F.playerVersion]: numberInput('2'),
      [F.resolutions]: checkboxes(['360p']),
    });
    expect(ack).toBeUndefined();
    const withButton = await h.fake.waitFor(
      'chat.postEphemeral',
      (c) => !ephemerals.has(c) && textOfCall(c).includes('library.create:reopen'),
      5_000,
    );
    expect(withButton.args).toMatchObject({ channel: DEFAULT_CHANNEL_ID, user: DEFAULT_USER_ID });

    const button = z
      .array(
        z.looseObject({
          elements: z.array(z.looseObject({ action_id: z.string(), value: z.string() })).optional(),
        }),
      )
      .parse(withButton.args.blocks)
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.action_id === 'library.create:reopen');
    expect(button?.value.length).toBeLessThanOrEqual(2000);
    const opened = new Set(h.fake.callsTo('views.open'));
    await h.click('library.create:reopen', button!.value);
    const reopened = OpenSchema.parse(
      (await h.fake.waitFor('views.open', (c) => !opened.has(c), 5_000)).args,
    ).view;
    expect(formatSchemaErrors(validateModal(reopened))).toBe('');
    expect(initialOf(reopened, F.name)).toMatchObject({ initial_value: 'Existing library' });
    expect(initialOf(reopened, F.playerVersion)).toMatchObject({ initial_value: '2' });
    expect(JSON.stringify(initialOf(reopened, F.regions))).toMatch(
      /"initial_options":\[\{[^\]]*"value":"SG"\}\]/,
    );
    expect(JSON.stringify(initialOf(reopened, F.resolutions))).toMatch(
      /"initial_options":\[\{[^\]]*"value":"360p"\}\]/,
    );
  });
});
