export {
  type EffortEstimate,
  type EffortReading,
  effortLevels,
  effortSchema,
  maxEffortNoteChars,
  readEffort,
} from "./effort.js";
export {
  type FollowUpsReading,
  followUpsSchema,
  maxFollowUpDetailChars,
  maxFollowUps,
  maxFollowUpTitleChars,
  readFollowUps,
  type SuggestedFollowUp,
} from "./follow-ups.js";
export { defuseClosingKeywords, makeInert } from "./host-markdown.js";
export {
  maxDescriptionChars,
  maxTitleChars,
  type PrDescriptionOptions,
  type PrDescriptionReading,
  preparePrDescription,
  readPrDescription,
} from "./pr-description.js";
export { readSentinels, type SentinelsReading } from "./read-sentinels.js";
export {
  composePrBody,
  neutraliseReportMarkers,
  refreshPrBody,
  reportEnd,
  reportRegionOf,
  reportStart,
} from "./report-region.js";
export { effortFile, followUpsFile, maxSentinelBytes, prDescriptionFile } from "./sentinel-files.js";
