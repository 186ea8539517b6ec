/**
 * The chart's SVG as a PNG, drawn by resvg with exactly the fonts it is given: no system font is
 * ever looked up, so the picture is the same on a laptop and in the slim Docker image. Loaded by
 * the chart worker only; resvg is a native module.
 */
import { Resvg, type ResvgRenderOptions, renderAsync } from '@resvg/resvg-js';
import { type BucketChart, CHART_FONT_FAMILY, CHART_SCALE, chartSvg } from './bucket.js';
import { type SeriesChart, seriesSvg } from './series.js';

export interface ChartPng {
  png: Buffer;
  /** Pixels. */
  width: number;
  height: number;
}

/**
 * Draws `chart` with the TrueType files `fontFiles`; with none, the words are left out (resvg
 * skips text it has no font for). Paths, not buffers: resvg-js passes its options as JSON, and
 * a font buffer there costs a megabyte of text and loses the other options.
 */
export function drawChartPng(chart: BucketChart | SeriesChart, fontFiles: readonly string[]): ChartPng {
  const picture = new Resvg(svgOf(chart), renderOptions(fontFiles)).render();
  return { png: picture.asPng(), width: picture.width, height: picture.height };
}

/**
 * As `drawChartPng`, rasterised on libuv's threads rather than the caller's: the charts of one
 * answer, drawn at once, use every core instead of queueing on the one report thread.
 */
export async function drawChartPngAsync(
  chart: BucketChart | SeriesChart,
  fontFiles: readonly string[],
): Promise<ChartPng> {
  const picture = await renderAsync(svgOf(chart), renderOptions(fontFiles));
  return { png: picture.asPng(), width: picture.width, height: picture.height };
}

function svgOf(chart: BucketChart | SeriesChart): string {
  return 'kind' in chart ? seriesSvg(chart) : chartSvg(chart);
}

function renderOptions(fontFiles: readonly string[]): ResvgRenderOptions {
  return {
    font: { fontFiles: [...fontFiles], loadSystemFonts: false, defaultFontFamily: CHART_FONT_FAMILY },
    fitTo: { mode: 'zoom', value: CHART_SCALE },
    background: '#ffffff',
  };
}
