/** Opens the region of a PR body the server manages (the job's report); a hidden HTML comment. */
export const reportStart = "<!-- castellan:report:start -->";
/** Closes the region of a PR body the server manages. */
export const reportEnd = "<!-- castellan:report:end -->";

// Anything that reads as one of the markers: an HTML comment opening onto `castellan:report:`.
const markerLike = /<!--(?=\s*castellan:report:)/gi;

/**
 * `text` with every marker-like comment broken by a zero-width joiner after its `<!--`, so it
 * no longer matches {@link reportStart} or {@link reportEnd}. For the agent's text, where
 * `makeInert` already escapes the markers in prose but leaves them as they are in code, and for
 * any fallback description that was never made inert.
 */
export function neutraliseReportMarkers(text: string): string {
  return text.replace(markerLike, "<!--\u200d");
}

/**
 * A PR body: `description`, a blank line, then the report region holding `report`. Markers in
 * either text are neutralised first, so neither can open or close a region of its own.
 */
export function composePrBody(description: string, report: string): string {
  const inner = neutraliseReportMarkers(report).trim();
  // Blank lines around the report, so its first and last blocks are not read as part of the comments.
  const region = inner === "" ? `${reportStart}\n${reportEnd}` : `${reportStart}\n\n${inner}\n\n${reportEnd}`;
  return joinBody(description, region);
}

/**
 * A body for a pull request that already exists: the new `description`, then the report region
 * of `existingBody` exactly as it stands (anything else in the old body is replaced). Just the
 * description when the old body has no region.
 */
export function refreshPrBody(existingBody: string, description: string): string {
  return joinBody(description, reportRegionOf(existingBody));
}

/**
 * The report region of `body`, both markers included, exactly as it stands; undefined when there
 * is none or it is not closed. The last start marker counts, since the server writes the region
 * after the description.
 */
export function reportRegionOf(body: string): string | undefined {
  const start = body.lastIndexOf(reportStart);
  if (start < 0) return undefined;
  const end = body.indexOf(reportEnd, start + reportStart.length);
  return end < 0 ? undefined : body.slice(start, end + reportEnd.length);
}

function joinBody(description: string, region: string | undefined): string {
  const text = neutraliseReportMarkers(description).trimEnd();
  if (region === undefined) return text;
  return text === "" ? region : `${text}\n\n${region}`;
}
