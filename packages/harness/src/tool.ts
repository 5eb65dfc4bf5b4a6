import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { ToolDelegation } from "./child-run.js";
import type { ContentBlock } from "./content.js";
import type { AgentIdentity, StateShape, StateView, ToolContext } from "./context.js";
import { type Enabled, isEnabledOption } from "./enabled.js";
import { DeclarationError } from "./errors.js";
import { deepFreeze, findNonJson, type JsonObject, type JsonValue } from "./json.js";
import type { BindingHandle } from "./resource.js";
import type { ToolPermissionContext, ToolPermissionContribution, ToolPermissionRequest } from "./tool-permission.js";
import { isStandardSchema, standardInputJsonSchema, type ToolInputStandardSchema } from "./tool-schema.js";

/**
 * What a tool may return: a string (one text block), content blocks, `{ content, isError }`,
 * nothing, or any other JSON value (sent as its JSON text).
 */
export type ToolOutput =
  | string
  | readonly ContentBlock[]
  | { readonly content: string | readonly ContentBlock[]; readonly isError?: boolean }
  | JsonValue
  | undefined
  | void;

/** What a tool's `admit` is given besides the input. */
export interface ToolAdmitContext {
  readonly sessionId: string;
  readonly runId: string;
  readonly toolCallId: string;
  /** The agent whose model made the call. */
  readonly agent: AgentIdentity;
  /** Aborted when the Run is aborted. */
  readonly signal: AbortSignal;
  /** The Session's sandbox, as in `ToolContext.sandbox`; undefined when none is declared. */
  readonly sandbox: unknown;
  /** The acquired resources of the capability that declares the tool, as in `ToolContext.resources`. */
  readonly resources: readonly BindingHandle[];
}

/** What `admit` returns: the admission shown to permission and approval, and optionally a replaced input. */
export interface ToolAdmission<Input = any> {
  /** Replaces the input that permission hooks, approval and `execute` see; it must still match the schema. Default: the validated input. */
  readonly input?: Input;
  /** A JSON summary of what the call will do (e.g. the files a patch touches); frozen when admitted. */
  readonly admission: JsonValue;
}

/** How a call is shown to a person asked to approve it. */
export interface ToolCallDescription {
  /** One line: what the call does, e.g. `Edit src/app.ts`. */
  readonly title: string;
  /** The detail worth reading before answering (a unified diff, a command line and its workdir). Default "". */
  readonly summary?: string;
}

/** The fields of a tool, as given to `defineTool`; `State` types `ctx.state` and `ctx.setState` (default: any key). */
export interface ToolDefinition<Input = any, State extends StateShape = StateView> {
  /** Letters, digits, `_` and `-`, at most 64 characters (what every provider accepts). */
  readonly name: string;
  readonly description: string;
  /**
   * The input's JSON Schema, checked before any permission question. `defineTool` also takes a Standard Schema here (Zod 4, Valibot,
   * ArkType): it types the input, validates it with its own `~standard.validate`, and is shown
   * to the model through its Standard JSON Schema conversion. Default: an object with no
   * declared properties.
   */
  readonly inputSchema?: JsonObject;
  /** Declare only when the whole tool has no effects: read-only tools may run in parallel and are allowed by every preset. Default false. */
  readonly readOnly?: boolean;
  /**
   * Declare when running the call twice has the effect of running it once (usually because
   * it passes `ctx.idempotencyKey` to the service it calls). Only such a call may be retried
   * when an interrupted Run is resumed; any other call without a receipt is settled as
   * "outcome unknown". Default false.
   */
  readonly idempotent?: boolean;
  /** Whether the model sees the tool this turn. Default true. */
  readonly enabled?: Enabled<State>;
  /**
   * The child agents this tool runs with `ctx.runAgent`, and the grants it gives each: checked
   * when a Session opens, and the tool is hidden from a child Session with no delegation level
   * left. Default: none.
   */
  readonly delegates?: readonly ToolDelegation[];
  /**
   * The tool's own check of a call, before anyone is asked about it: runs after schema
   * validation and before any permission hook, each time the call is prepared (on resume
   * too). A throw settles the call as an error result and nobody is asked; a
   * `ToolInputError` gives the result its code. What it returns reaches permission hooks and
   * approval as `admission`, and `execute` as `ctx.admission`. Since approval may wait,
   * `execute` must check again whatever can change meanwhile. Default: none.
   */
  admit?(input: Input, ctx: ToolAdmitContext): ToolAdmission<Input> | Promise<ToolAdmission<Input>>;
  /**
   * The tool's own permission rule: asked about each of its calls with the same request
   * (input, admission, source, parent) and the same answers as a plugin's `toolPermission`
   * hook, right after every plugin's hook; all answers merge (any `deny` wins, then `ask`,
   * then `allow`), and the preset answers only when every one deferred. A throw denies the
   * call. Lets an application's tool decide some of its own calls, as the built-in
   * `command_session` allows polling the Session's own commands. Default: none.
   */
  permission?(
    request: ToolPermissionRequest & { readonly input: Input },
    ctx: ToolPermissionContext,
  ): ToolPermissionContribution | Promise<ToolPermissionContribution>;
  execute(input: Input, ctx: ToolContext<State>): Promise<ToolOutput> | ToolOutput;
  /**
   * Describes one call for an approval request (its `title` and `summary`), from the final input
   * and the admission; never the model-facing `description`. A throw or a bad answer falls back
   * to the default. Default: title `Call <name>`, no summary.
   */
  describeCall?(input: Input, admission: JsonValue | undefined): ToolCallDescription;
}

/** A declared tool: a frozen value holding its contract and implementation. */
export interface Tool<Input = any, State extends StateShape = StateView> extends ToolDefinition<Input, State> {
  readonly kind: "tool";
  /** The JSON Schema the model is shown (a Standard Schema's conversion, for one given). */
  readonly inputSchema: JsonObject;
  /** The Standard Schema given as `inputSchema`, which validates the input; undefined for a JSON Schema. */
  readonly inputStandardSchema?: ToolInputStandardSchema<Input>;
  readonly readOnly: boolean;
  readonly idempotent: boolean;
}

/** A reference to a tool the host registers (`host.registerTool`, `host.registerHostedTool`). */
export interface HostToolReference {
  readonly kind: "host-tool";
  readonly name: string;
  readonly enabled?: Enabled;
}

/** What an agent or capability lists in `tools`. */
export type ToolDeclaration = Tool | HostToolReference;

const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a tool name; throws a DeclarationError naming the offender. */
export function assertToolName(name: unknown, where: string): asserts name is string {
  if (typeof name !== "string" || !toolName.test(name)) {
    throw new DeclarationError(`${where}: tool name ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`);
  }
}

/** A tool definition whose input type comes from its Standard Schema `inputSchema`. */
export type SchemaTypedDefinition<Schema, Input, State extends StateShape = StateView> = Omit<
  ToolDefinition<Input, State>,
  "inputSchema"
> & {
  readonly inputSchema: Schema;
};

/**
 * Declares a tool. The result is frozen; declaring it runs nothing. `execute`'s input is typed
 * from a Standard Schema's output, or by the type argument (`defineTool<{ path: string }>(...)`,
 * or `defineTool<FromSchema<typeof schema>>(...)` for a JSON Schema written `as const`, with
 * json-schema-to-ts); otherwise it is `any`.
 *
 * @throws DeclarationError for a bad name, description, schema or option.
 */
export function defineTool<Schema extends StandardSchemaV1>(
  definition: SchemaTypedDefinition<Schema, StandardSchemaV1.InferOutput<Schema>>,
): Tool<StandardSchemaV1.InferOutput<Schema>>;
export function defineTool<Input = any, State extends StateShape = StateView>(
  definition: ToolDefinition<Input, State>,
): Tool<Input, State>;
export function defineTool(
  definition: Omit<ToolDefinition, "inputSchema"> & { readonly inputSchema?: JsonObject | ToolInputStandardSchema },
): Tool {
  assertToolName(definition?.name, "defineTool");
  const where = `defineTool("${definition.name}")`;
  if (typeof definition.description !== "string") throw new DeclarationError(`${where}: description must be a string.`);
  if (typeof definition.execute !== "function") throw new DeclarationError(`${where}: execute must be a function.`);
  if (definition.admit !== undefined && typeof definition.admit !== "function") {
    throw new DeclarationError(`${where}: admit must be a function.`);
  }
  if (definition.describeCall !== undefined && typeof definition.describeCall !== "function") {
    throw new DeclarationError(`${where}: describeCall must be a function.`);
  }
  if (definition.permission !== undefined && typeof definition.permission !== "function") {
    throw new DeclarationError(`${where}: permission must be a function.`);
  }
  if (!isEnabledOption(definition.enabled)) {
    throw new DeclarationError(`${where}: enabled must be a boolean or a function of the turn context.`);
  }
  if (definition.readOnly !== undefined && typeof definition.readOnly !== "boolean") {
    throw new DeclarationError(`${where}: readOnly must be a boolean.`);
  }
  if (definition.idempotent !== undefined && typeof definition.idempotent !== "boolean") {
    throw new DeclarationError(`${where}: idempotent must be a boolean.`);
  }
  if (definition.delegates !== undefined && !isDelegationList(definition.delegates)) {
    throw new DeclarationError(
      `${where}: delegates must be a list of { agent: an Agent from defineAgent, toolGrants: tool names }.`,
    );
  }
  const standard = isStandardSchema(definition.inputSchema) ? definition.inputSchema : undefined;
  const inputSchema = standard
    ? standardInputJsonSchema(standard, where)
    : ((definition.inputSchema as JsonObject | undefined) ?? { type: "object", properties: {} });
  if (inputSchema === null || typeof inputSchema !== "object" || Array.isArray(inputSchema)) {
    throw new DeclarationError(`${where}: inputSchema must be a JSON Schema object.`);
  }
  const nonJson = findNonJson(inputSchema);
  if (nonJson) throw new DeclarationError(`${where}: inputSchema is not JSON at ${nonJson}.`);
  if (inputSchema.type !== "object") {
    throw new DeclarationError(`${where}: inputSchema must describe an object ({ "type": "object", ... }).`);
  }
  return Object.freeze({
    ...definition,
    kind: "tool",
    inputSchema: deepFreeze(structuredClone(inputSchema)),
    ...(standard ? { inputStandardSchema: standard } : {}),
    readOnly: definition.readOnly ?? false,
    idempotent: definition.idempotent ?? false,
  } as Tool);
}

function isDelegationList(value: unknown): value is readonly ToolDelegation[] {
  return (
    Array.isArray(value) &&
    value.every(
      (entry) =>
        entry !== null &&
        typeof entry === "object" &&
        (entry as ToolDelegation).agent?.kind === "agent" &&
        Array.isArray((entry as ToolDelegation).toolGrants) &&
        (entry as ToolDelegation).toolGrants.every((name) => typeof name === "string" && name !== ""),
    )
  );
}

/** How a call of `tool` is shown for approval: its own `describeCall`, else `Call <name>` with no summary. */
export function describeToolCall(
  tool: Tool,
  input: JsonValue,
  admission: JsonValue | undefined,
): Required<ToolCallDescription> {
  const fallback = { title: `Call ${tool.name}`, summary: "" };
  if (!tool.describeCall) return fallback;
  try {
    const described = tool.describeCall(input, admission) as Partial<ToolCallDescription> | undefined;
    if (typeof described?.title !== "string" || described.title.trim() === "") return fallback;
    return { title: described.title, summary: typeof described.summary === "string" ? described.summary : "" };
  } catch {
    return fallback;
  }
}

/** Refers to a tool the host registers under `name`; a missing name fails when a Session opens. */
export function hostTool(name: string, options: { enabled?: Enabled } = {}): HostToolReference {
  assertToolName(name, "hostTool");
  if (!isEnabledOption(options.enabled)) {
    throw new DeclarationError(`hostTool("${name}"): enabled must be a boolean or a function of the turn context.`);
  }
  return Object.freeze({
    kind: "host-tool",
    name,
    ...(options.enabled === undefined ? {} : { enabled: options.enabled }),
  });
}

export function isToolDeclaration(value: unknown): value is ToolDeclaration {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === "tool" || kind === "host-tool";
}
