/** POST /videolibrary: the request is validated as strictly as the vendor's model; success is 201. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { hasAccountKey, sendApiError, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import { isoSeconds } from '../seed.js';
import type { SandboxState } from '../state.js';
import { type VideoLibraryCreateBody, VideoLibraryCreateBodySchema } from '../vendor-rules.js';

const DEFAULT_RESOLUTIONS = '240p,360p,480p,720p,1080p';

/** Stream library keys are a UUID followed by two more groups. */
const libraryKey = () =>
  `${randomUUID()}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}`;

/** The first schema issue as ApiErrorData: unknown fields are named as the field. */
function firstIssue(error: z.ZodError): { field: string | null; message: string } {
  const issue = error.issues[0];
  if (!issue) return { field: null, message: 'The request is invalid' };
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? null;
    return { field: key, message: `The field ${key} is not part of the model` };
  }
  const field = issue.path.length > 0 ? String(issue.path[0]) : null;
  return { field, message: field ? `${field}: ${issue.message}` : issue.message };
}

/** Business rules the schema does not carry: codecs and JIT encoding need the Premium tier. */
function tierProblem(
  input: VideoLibraryCreateBody,
): { key: string; field: string; message: string } | undefined {
  const premium = input.EncodingTier === 1;
  const codecs = (input.OutputCodecs ?? '')
    .split(',')
    .map((codec) => codec.trim())
    .filter(Boolean);
  if (!premium && codecs.some((codec) => codec !== 'x264')) {
    return {
      key: 'videoLibrary.codec_requires_premium',
      field: 'OutputCodecs',
      message:
        'Only x264 is available on the free encoding tier; vp9, hevc and av1 need EncodingTier 1 (Premium)',
    };
  }
  if (!premium && input.JitEncodingEnabled) {
    return {
      key: 'videoLibrary.jit_requires_premium',
      field: 'JitEncodingEnabled',
      message: 'JIT encoding is available only with EncodingTier 1 (Premium)',
    };
  }
  return undefined;
}

function buildLibrary(state: SandboxState, input: VideoLibraryCreateBody) {
  const now = isoSeconds(state.now());
  const apiKey = libraryKey();
  const smartGeneration =
    !!input.EnableTranscribingTitleGeneration ||
    !!input.EnableTranscribingDescriptionGeneration ||
    !!input.EnableTranscribingChaptersGeneration ||
    !!input.EnableTranscribingMomentsGeneration;
  const earlyPlay = input.AllowEarlyPlay ?? false;
  const drm = { Enabled: false, CertificateId: null, CertificateExpirationDate: null, Provider: null };
  return {
    Id: state.nextIds.library++,
    Name: input.Name,
    VideoCount: 0,
    TrafficUsage: 0,
    StorageUsage: 0,
    DateCreated: now,
    DateModified: now,
    ReplicationRegions: input.ReplicationRegions ?? [],
    ApiKey: apiKey,
    ReadOnlyApiKey: libraryKey(),
    HasWatermark: false,
    WatermarkPositionLeft: 70,
    WatermarkPositionTop: 70,
    WatermarkWidth: 0,
    WatermarkHeight: 0,
    WatermarkVersion: 0,
    PullZoneId: state.nextIds.pullZone++,
    StorageZoneId: state.nextIds.storageZone++,
    PullZoneType: 0,
    EnabledResolutions: input.EnabledResolutions ?? DEFAULT_RESOLUTIONS,
    Bitrate240p: 600,
    Bitrate360p: 800,
    Bitrate480p: 1400,
    Bitrate720p: 2800,
    Bitrate1080p: 5000,
    Bitrate1440p: 8000,
    Bitrate2160p: 13000,
    AdProviderPublisherId: null,
    VastTagUrl: null,
    WebhookUrl: null,
    CaptionsFontSize: 20,
    CaptionsFontColor: '#fff',
    CaptionsBackground: '',
    FontFamily: 'Rubik',
    UILanguage: 'en',
    AllowEarlyPlay: earlyPlay,
    PlayerTokenAuthenticationEnabled: false,
    AllowedReferrers: [],
    BlockedReferrers: [],
    BlockNoneReferrer: input.BlockNoneReferrer ?? false,
    EnableMP4Fallback: input.EnableMP4Fallback ?? false,
    KeepOriginalFiles: input.KeepOriginalFiles ?? true,
    AllowDirectPlay: input.AllowDirectPlay ?? true,
    EnableDRM: false,
    DrmVersion: 0,
    PlatformADrm: drm,
    PlatformBDrm: { ...drm, SdOnlyForL3: false, MinClientSecurityLevel: null },
    ApiAccessKey: apiKey,
    ShowHeatmap: false,
    EnableContentTagging: true,
    CustomHTML: null,
    Controls: 'play-large,play,progress,current-time,mute,volume,captions,settings,pip,airplay,fullscreen',
    PlaybackSpeeds: '0.5,0.75,1,1.25,1.5,1.75,2',
    PlayerKeyColor: '#ff7755',
    PlayerVersion: input.PlayerVersion ?? 2,
    // Any smart-generation feature needs transcripts, so it switches transcribing on.
    EnableTranscribing: (input.EnableTranscribing ?? false) || smartGeneration,
    EnableTranscribingTitleGeneration: input.EnableTranscribingTitleGeneration ?? false,
    EnableTranscribingDescriptionGeneration: input.EnableTranscribingDescriptionGeneration ?? false,
    EnableTranscribingChaptersGeneration: input.EnableTranscribingChaptersGeneration ?? false,
    EnableTranscribingMomentsGeneration: input.EnableTranscribingMomentsGeneration ?? false,
    TranscribingCaptionLanguages: input.TranscribingCaptionLanguages ?? [],
    EnableCaptionsInPlaylist: false,
    RememberPlayerPosition: false,
    EnableMultiAudioTrackSupport: input.EnableMultiAudioTrackSupport ?? false,
    UseSeparateAudioStream: false,
    JitEncodingEnabled: input.JitEncodingEnabled ?? false,
    EncodingTier: input.EncodingTier ?? 0,
    OutputCodecs: input.OutputCodecs ?? 'x264',
    DrmBasePriceOverride: null,
    DrmCostPerLicenseOverride: null,
    TranscribingPriceOverride: null,
    PremiumEncodingPriceOverride: null,
    MonthlyChargesTranscribing: 0,
    MonthlyChargesPremiumEncoding: 0,
    MonthlyChargesEnterpriseDrm: 0,
    FeatureFlags: null,
    RemoveMetadataFromFallbackVideos: false,
    ScaleVideoUsingBothDimensions: true,
    // Early play serves the upload before encoding finishes, which means exposing the original.
    ExposeOriginals: earlyPlay,
    ExposeVideoMetadata: false,
    EnableCompactControls: false,
  };
}

export function videoLibraryRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'videolibrary.create',
      listener: 'api',
      method: 'POST',
      path: /^\/videolibrary$/,
      handle({ req, res, json }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        if (!json.ok) {
          return sendApiError(
            res,
            'validation_error',
            null,
            json.empty ? 'A request body is required' : 'The request body is not valid JSON',
          );
        }
        const parsed = VideoLibraryCreateBodySchema.safeParse(json.value);
        if (!parsed.success) {
          const { field, message } = firstIssue(parsed.error);
          return sendApiError(res, 'validation_error', field, message);
        }
        const problem = tierProblem(parsed.data);
        if (problem) return sendApiError(res, problem.key, problem.field, problem.message);
        const library = buildLibrary(state, parsed.data);
        state.pullZones.set(library.PullZoneId, {
          id: library.PullZoneId,
          name: `vz-${library.Id}`,
          securityKey: randomUUID(),
          originUrl: `https://video.example.com/${library.Id}`,
          hostnames: [`vz-${library.Id}.b-cdn.net`],
        });
        sendJson(res, 201, library);
      },
    },
  ];
}
