import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_LIBRARY_FORM,
  LIBRARY_FIELDS as F,
  type LibraryForm,
  libraryModal,
  libraryRequest,
  readLibraryForm,
  reopenValue,
} from '../../src/operations/library.js';
import { VideoLibraryCreateSchema } from '../../src/platform/schemas.js';
import type { ModalSpec, ModalValues } from '../../src/reply/form.js';
import { renderModal } from '../../src/slack/blocks/modal.js';
import { BUTTON_VALUE_MAX } from '../../src/slack/limits.js';
import { checkViewLimits, formatSchemaErrors, validateModal } from '../support/block-kit.js';
import {
  answers,
  buttonsOf,
  dmsIn,
  type EngineTestbed,
  fieldsOf,
  formIn,
  onlyAnswer,
  postsIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

/** What a user who only typed a name submits: the form's initial values. */
const submitted = (changes: ModalValues = {}): ModalValues => ({
  [F.name]: 'Product demos',
  [F.regions]: [],
  [F.playerVersion]: undefined,
  [F.tier]: 'free',
  [F.jit]: [],
  [F.codecs]: ['x264'],
  [F.resolutions]: ['720p', '1080p'],
  [F.playback]: ['keep-originals', 'direct-play'],
  [F.transcribing]: [],
  [F.captionLanguages]: [],
  [F.smart]: [],
  ...changes,
});

const errorsOf = (values: ModalValues) => {
  const reading = readLibraryForm(values);
  return reading.ok ? {} : reading.errors;
};

describe('the New video library form', () => {
  it('renders as a modal Slack accepts, with the name filled in and the defaults checked', () => {
    const view = renderModal(libraryModal({ ...DEFAULT_LIBRARY_FORM, name: 'Product demos' }));
    expect(formatSchemaErrors(validateModal(view))).toBe('');
    expect(checkViewLimits(view)).toEqual([]);
    expect(view.title.text).toBe('New video library');
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('"initial_value":"Product demos"');
    const codecs = view.blocks.find((block) => block.block_id === F.codecs);
    expect(JSON.stringify(codecs)).toContain('"initial_options":[{"text":{"type":"plain_text","text":"x264"');
    const resolutions = JSON.stringify(view.blocks.find((block) => block.block_id === F.resolutions));
    expect(resolutions.match(/"initial_options":\[(.*?)\]\}/)?.[1]).toMatch(/720p.*1080p/);
  });

  it('accepts a name alone and sends the defaults, every switch explicit', () => {
    const reading = readLibraryForm(submitted());
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    const { body, transcribingTurnedOn } = libraryRequest(reading.form);
    expect(VideoLibraryCreateSchema.parse(body)).toEqual(body);
    expect(body).toEqual({
      Name: 'Product demos',
      EncodingTier: 0,
      JitEncodingEnabled: false,
      OutputCodecs: 'x264',
      EnabledResolutions: '720p,1080p',
      EnableTranscribing: false,
      BlockNoneReferrer: false,
      EnableMP4Fallback: false,
      KeepOriginalFiles: true,
      AllowDirectPlay: true,
      EnableMultiAudioTrackSupport: false,
      AllowEarlyPlay: false,
      EnableTranscribingTitleGeneration: false,
      EnableTranscribingDescriptionGeneration: false,
      EnableTranscribingChaptersGeneration: false,
      EnableTranscribingMomentsGeneration: false,
    });
    expect(transcribingTurnedOn).toBe(false);
  });

  it('needs a name of at least one character', () => {
    expect(errorsOf(submitted({ [F.name]: '' }))).toHaveProperty(F.name);
    expect(errorsOf(submitted({ [F.name]: '   ' }))).toHaveProperty(F.name);
    expect(errorsOf(submitted({ [F.name]: 'x' }))).toEqual({});
  });

  it('needs at least one resolution', () => {
    expect(errorsOf(submitted({ [F.resolutions]: [] }))).toEqual({
      [F.resolutions]: 'Enable at least one resolution.',
    });
  });

  it('allows codecs other than x264 only with Premium', () => {
    expect(errorsOf(submitted({ [F.codecs]: ['x264', 'av1'] }))[F.codecs]).toContain('Premium');
    expect(errorsOf(submitted({ [F.codecs]: ['x264', 'av1'], [F.tier]: 'premium' }))).toEqual({});
  });

  it('allows JIT encoding only with Premium', () => {
    expect(errorsOf(submitted({ [F.jit]: ['on'] }))).toEqual({
      [F.jit]: 'JIT encoding needs the Premium encoding tier.',
    });
    expect(errorsOf(submitted({ [F.jit]: ['on'], [F.tier]: 'premium' }))).toEqual({});
  });

  it('shows every problem at once, each on its own field', () => {
    const errors = errorsOf(
      submitted({ [F.name]: '', [F.resolutions]: [], [F.codecs]: ['vp9'], [F.jit]: ['on'] }),
    );
    expect(Object.keys(errors).sort()).toEqual([F.codecs, F.jit, F.name, F.resolutions].sort());
  });

  it('refuses a player version that is not a whole number in range', () => {
    expect(errorsOf(submitted({ [F.playerVersion]: '1.5' }))).toHaveProperty(F.playerVersion);
    expect(errorsOf(submitted({ [F.playerVersion]: '0' }))).toHaveProperty(F.playerVersion);
    expect(errorsOf(submitted({ [F.playerVersion]: '2147483648' }))).toHaveProperty(F.playerVersion);
    const reading = readLibraryForm(submitted({ [F.playerVersion]: '2' }));
    expect(reading.ok && libraryRequest(reading.form).body.PlayerVersion).toBe(2);
  });

  it('refuses choices that are not in the form', () => {
    expect(errorsOf(submitted({ [F.regions]: ['MARS'] }))).toHaveProperty(F.regions);
    expect(errorsOf(submitted({ [F.codecs]: ['h266'] }))).toHaveProperty(F.codecs);
    expect(errorsOf(submitted({ [F.tier]: 'gold' }))).toHaveProperty(F.tier);
  });

  it('turns transcribing on when a smart generation feature is chosen, and says it did', () => {
    const reading = readLibraryForm(submitted({ [F.smart]: ['chapters', 'titles'] }));
    if (!reading.ok) throw new Error('expected a valid form');
    const { body, transcribingTurnedOn } = libraryRequest(reading.form);
    expect(body.EnableTranscribing).toBe(true);
    expect(body.EnableTranscribingTitleGeneration).toBe(true);
    expect(body.EnableTranscribingChaptersGeneration).toBe(true);
    expect(body.EnableTranscribingMomentsGeneration).toBe(false);
    expect(transcribingTurnedOn).toBe(true);
    const chosen = readLibraryForm(submitted({ [F.smart]: ['titles'], [F.transcribing]: ['on'] }));
    expect(chosen.ok && libraryRequest(chosen.form).transcribingTurnedOn).toBe(false);
  });

  it('sends regions, caption languages and resolutions in the platform’s words', () => {
    const reading = readLibraryForm(
      submitted({
        [F.regions]: ['SG', 'DE'],
        [F.captionLanguages]: ['de', 'en'],
        [F.transcribing]: ['on'],
        [F.resolutions]: ['2160p', '240p'],
      }),
    );
    if (!reading.ok) throw new Error('expected a valid form');
    const { body } = libraryRequest(reading.form);
    expect(body.ReplicationRegions).toEqual(['DE', 'SG']);
    expect(body.TranscribingCaptionLanguages).toEqual(['en', 'de']);
    expect(body.EnabledResolutions).toBe('240p,2160p');
  });

  it('carries the form in a button value within Slack’s limit, however long the name', () => {
    const form: LibraryForm = {
      ...DEFAULT_LIBRARY_FORM,
      name: 'x'.repeat(5000),
      regions: ['DE', 'UK', 'SE', 'CZ', 'ES', 'NY', 'LA', 'WA', 'MI', 'SG', 'SYD', 'HK', 'JP', 'BR', 'JH'],
      captionLanguages: ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'da', 'no', 'fi', 'cs'],
    };
    const value = reopenValue(form);
    expect(value.length).toBeLessThanOrEqual(BUTTON_VALUE_MAX);
    expect(JSON.parse(value)).toMatchObject({
      regions: form.regions,
      captionLanguages: form.captionLanguages,
    });
    const short = { ...form, name: 'Product demos' };
    expect(JSON.parse(reopenValue(short))).toEqual(short);
  });
});

describe('/edge library create through the engine', () => {
  let bed: EngineTestbed;
  beforeAll(async () => {
    bed = await startEngineTestbed();
  });
  afterAll(async () => {
    await bed?.close();
  });

  /** Runs `/edge TEXT` and returns the form it opened. */
  async function openForm(text: string) {
    const form = (await bed.run(text)).find((record) => record.kind === 'form');
    if (form?.kind !== 'form') throw new Error(`${text} opened no form`);
    return form.modal;
  }

  it('opens the New video library form before anything slow, with the name filled in', async () => {
    const platformCalls = bed.sandbox.requests.all().length;
    const modal = await openForm('library create "Product demos"');
    // Nothing that waits on the network comes between the command and the form (Slack's 3 s).
    expect(bed.sandbox.requests.all().length).toBe(platformCalls);
    expect(modal.callbackId).toBe('library.create:form');
    expect(modal.fields.find((field) => field.id === F.name)?.initial).toBe('Product demos');
    expect(modal.fields.map((field) => field.id)).toEqual(Object.values(F));
  });

  it('shows each rule’s problem on its own field and calls nothing', async () => {
    const modal = await openForm('library create');
    const before = bed.sandbox.requests.count('videolibrary.create');
    const refused = await bed.submit(
      modal,
      submitted({
        [F.name]: '',
        [F.resolutions]: [],
        [F.codecs]: ['x264', 'hevc'],
        [F.jit]: ['on'],
      }),
    );
    expect(refused).toEqual({
      errors: {
        [F.name]: 'Give the library a name (at least 1 character).',
        [F.resolutions]: 'Enable at least one resolution.',
        [F.codecs]: 'vp9, hevc and av1 need the Premium encoding tier: choose Premium, or keep only x264.',
        [F.jit]: 'JIT encoding needs the Premium encoding tier.',
      },
    });
    const premium = await bed.submit(
      modal,
      submitted({ [F.name]: '', [F.tier]: 'premium', [F.codecs]: ['x264', 'hevc'], [F.jit]: ['on'] }),
    );
    expect(premium).toEqual({ errors: { [F.name]: expect.any(String) } });
    expect(bed.sandbox.requests.count('videolibrary.create')).toBe(before);
  });

  /** The messages the channel sees among the records: posts there, and answers not for the requester alone. */
  const inChannel = (records: readonly Recorded[]) => [
    ...postsIn(records, 'C0OPS').map((post) => post.reply),
    ...answers(records).filter((reply) => reply.visibility === 'channel'),
  ];

  async function submittedRecords(modal: ModalSpec, values: ModalValues): Promise<Recorded[]> {
    const outcome = await bed.submit(modal, values);
    if ('errors' in outcome) throw new Error(`the form was refused: ${JSON.stringify(outcome.errors)}`);
    return outcome.records;
  }

  it('creates the library: the channel sees it, and its keys reach only the requester’s DM', async () => {
    const modal = await openForm('library create Launch');
    const records = await submittedRecords(
      modal,
      submitted({
        [F.name]: 'Launch videos',
        [F.regions]: ['DE', 'NY'],
        [F.tier]: 'premium',
        [F.jit]: ['on'],
        [F.codecs]: ['x264', 'vp9'],
        [F.resolutions]: ['480p', '1080p'],
        [F.smart]: ['titles'],
      }),
    );
    const dms = dmsIn(records, 'U0YOU');
    expect(dms).toHaveLength(1);
    const dm = dms[0]!;
    const posted = inChannel(records);
    expect(posted).toHaveLength(1);

    expect(bed.sandbox.requests.last('videolibrary.create')?.body).toMatchObject({
      Name: 'Launch videos',
      ReplicationRegions: ['DE', 'NY'],
      EncodingTier: 1,
      JitEncodingEnabled: true,
      OutputCodecs: 'x264,vp9',
      EnabledResolutions: '480p,1080p',
      EnableTranscribing: true,
      EnableTranscribingTitleGeneration: true,
    });

    const keys = [...wordsOf(dm.reply).matchAll(/`([0-9a-f-]{36,})`/g)].map((match) => match[1]!);
    expect(keys).toHaveLength(2);
    const channelText = wordsOf(posted[0]!);
    expect(channelText).toContain('Video library created');
    for (const shown of ['Launch videos', 'Premium', '480p, 1080p', 'x264, vp9', 'DE, NY'])
      expect(channelText).toContain(shown);
    expect(fieldsOf(posted[0]!).get('Pull zone id')).toMatch(/^\d+/);
    expect(fieldsOf(posted[0]!).get('Storage zone id')).toMatch(/^\d+/);
    expect(channelText).toContain('Transcribing was turned on because smart generation needs transcripts.');
    for (const key of keys) {
      expect(channelText).toContain(`…${key.slice(-4)}`);
      // Every record and every log line: the key is in the DM and nowhere else.
      expect(records.filter((record) => JSON.stringify(record).includes(key))).toEqual([dm]);
      expect(bed.logs.some((line) => line.includes(key))).toBe(false);
      expect(bed.runtime.secrets.values()).toContain(key);
    }
    // The audit row follows the channel message.
    const audit = await bed.runtime.services.audit.list({ limit: 50 });
    expect(
      audit.find(
        (r) => r.operation === 'library.create' && r.outcome === 'succeeded' && r.target === 'Launch videos',
      ),
    ).toBeDefined();
    expect(JSON.stringify(audit)).not.toContain(keys[0]);
  });

  it('reports a platform refusal with its field and reopens the form with the values entered', async () => {
    const modal = await openForm('library create');
    bed.sandbox.faults.set('videolibrary.create', {
      status: 400,
      body: {
        ErrorKey: 'videoLibrary.name_taken',
        Field: 'Name',
        Message: 'A video library with this name already exists',
      },
      times: 1,
    });
    const records = await submittedRecords(
      modal,
      submitted({
        [F.name]: 'Existing library',
        [F.regions]: ['SG'],
        [F.playerVersion]: '2',
        [F.resolutions]: ['360p'],
      }),
    );
    // One reply: the platform's words, the field at fault, and the way back to the form.
    const reply = onlyAnswer(records);
    expect(reply.visibility).toBe('ephemeral');
    const said = wordsOf(reply);
    expect(said).toContain('already exists');
    expect(said).toContain('Field: Name');
    expect(said).toContain('Fix *Name*');
    const button = buttonsOf(reply).find((b) => b.actionId === 'library.create:reopen');
    expect(button?.value.length).toBeLessThanOrEqual(2000);
    const reopened = formIn(await bed.click(button!));
    const initial = (id: string) => reopened.fields.find((field) => field.id === id)?.initial;
    expect(initial(F.name)).toBe('Existing library');
    expect(initial(F.playerVersion)).toBe(2);
    expect(initial(F.regions)).toEqual(['SG']);
    expect(initial(F.resolutions)).toEqual(['360p']);
    const audit = await bed.runtime.services.audit.list({ limit: 20 });
    expect(audit.some((r) => r.operation === 'library.create' && r.outcome === 'failed')).toBe(true);
  });
});
