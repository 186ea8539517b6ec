import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import {
  type VideoLibrary,
  type VideoLibraryCreate,
  VideoLibraryCreateSchema,
  VideoLibrarySchema,
} from './schemas.js';

/** POST /videolibrary: 201 with the new library (its ApiKey and ReadOnlyApiKey are secrets). */
export async function createVideoLibrary(
  ctx: PlatformContext,
  input: VideoLibraryCreate,
): Promise<VideoLibrary> {
  const body = VideoLibraryCreateSchema.safeParse(input);
  if (!body.success) throw invalidRequest('videolibrary.create', body.error);
  return ctx.http.json(
    {
      operation: 'videolibrary.create',
      subject: 'video library',
      method: 'POST',
      url: endpoint(ctx.apiUrl, '/videolibrary'),
      json: body.data,
      read: false,
      // 201 per the spec; the vendor answered 200 until 2026, so both count as success.
      expect: [200, 201],
    },
    VideoLibrarySchema,
  );
}
