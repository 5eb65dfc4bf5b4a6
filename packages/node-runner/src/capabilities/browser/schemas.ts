import type { JsonObject } from "@castellan/harness";

// The ten tools' input schemas. Mixes JSON Schema cannot state portably for every provider
// (snapshot arguments, width with height) are checked in `admit` instead.

/** Longest accepted accessible role. */
export const maxRoleLength = 64;
/** Longest accepted accessible name or option label. */
export const maxNameLength = 4_096;
/** Longest accepted ref. */
export const maxRefLength = 128;
/** Longest `browser_fill` value. */
export const maxFillLength = 10_000;
/** Longest `browser_press_key` key expression. */
export const maxKeyLength = 32;
/** Longest `browser_snapshot` query. */
export const maxQueryLength = 256;
/** Longest `browser_capture` savePath. */
export const maxSavePathLength = 1_024;

const role = {
  type: "string",
  minLength: 1,
  maxLength: maxRoleLength,
  description: "Accessible role as observed, e.g. button.",
};
const name = {
  type: "string",
  maxLength: maxNameLength,
  description: 'Accessible name as observed; "" with exact true for an unnamed control.',
};
const exact = {
  type: "boolean",
  description: "Exact, case-sensitive name. Default false: case-insensitive substring.",
};

const scope = {
  type: "object",
  description: "An observed ancestor that must match exactly one element; matching stays inside it.",
  properties: { role, name: { ...name, description: "Its accessible name. Default: any." }, exact },
  required: ["role"],
  additionalProperties: false,
};

const targetProperties = {
  role,
  name,
  exact,
  ref: {
    type: "string",
    minLength: 1,
    maxLength: maxRefLength,
    description: "The element's ref from the latest observation; intersected with role and name.",
  },
  within: scope,
};

/** A target as its own object (browser_drag's source and target). */
export const targetSchema = {
  type: "object",
  properties: targetProperties,
  required: ["role", "name"],
  additionalProperties: false,
};

function targetTool(extra: Record<string, unknown> = {}, required: string[] = []): JsonObject {
  return {
    type: "object",
    properties: { ...targetProperties, ...extra },
    required: ["role", "name", ...required],
    additionalProperties: false,
  } as JsonObject;
}

/** The input schema of each browser tool. */
export const browserToolSchemas = {
  browser_navigate: {
    type: "object",
    properties: {
      url: { type: "string", minLength: 1, description: "An http: or https: URL, at most 2,048 characters." },
      newTab: { type: "boolean", description: "Open it in a new active tab, keeping the current page. Default false." },
    },
    required: ["url"],
    additionalProperties: false,
  },
  browser_snapshot: {
    type: "object",
    properties: {
      observationId: { type: "string", minLength: 1, maxLength: 64, description: "From a continuation, with offset." },
      offset: { type: "integer", minimum: 0, description: "From a continuation, with observationId." },
      query: {
        type: "string",
        minLength: 1,
        maxLength: maxQueryLength,
        description: "Alone: find this text (case-insensitive, literal) in the latest observation.",
      },
    },
    additionalProperties: false,
  },
  browser_switch_tab: {
    type: "object",
    properties: {
      tabId: { type: "string", minLength: 1, maxLength: 256, description: "A tabId from the latest tab list." },
    },
    required: ["tabId"],
    additionalProperties: false,
  },
  browser_click: targetTool(),
  browser_hover: targetTool(),
  browser_drag: {
    type: "object",
    properties: { source: targetSchema, target: targetSchema },
    required: ["source", "target"],
    additionalProperties: false,
  },
  browser_select_option: targetTool(
    { label: { type: "string", maxLength: maxNameLength, description: "The visible label of the option." } },
    ["label"],
  ),
  browser_fill: targetTool(
    { value: { type: "string", maxLength: maxFillLength, description: "The new value; replaces the current one." } },
    ["value"],
  ),
  browser_press_key: {
    type: "object",
    properties: {
      key: {
        type: "string",
        minLength: 1,
        maxLength: maxKeyLength,
        description: "One key expression for the focused element: Enter, Shift+Tab, ArrowRight.",
      },
    },
    required: ["key"],
    additionalProperties: false,
  },
  browser_capture: {
    type: "object",
    properties: {
      width: { type: "integer", minimum: 320, maximum: 3_840, description: "CSS px, with height." },
      height: { type: "integer", minimum: 240, maximum: 2_160, description: "CSS px, with width." },
      colorScheme: { type: "string", enum: ["light", "dark"] },
      reducedMotion: { type: "string", enum: ["reduce", "no-preference"] },
      savePath: {
        type: "string",
        minLength: 1,
        maxLength: maxSavePathLength,
        description: "Also save the PNG at this path relative to the capture workspace.",
      },
    },
    additionalProperties: false,
  },
} satisfies Record<string, JsonObject>;
