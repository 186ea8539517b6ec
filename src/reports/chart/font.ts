/**
 * The one font charts are drawn with: Inter Regular, TrueType (resvg reads no WOFF), from the
 * @expo-google-fonts/inter package under the SIL Open Font Licence. Resolved like a module, so
 * it is found from src/ under tsx and from dist/ in the image alike.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function chartFontFile(): string {
  return require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf');
}
