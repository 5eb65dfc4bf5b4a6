import type { JsonValue, Tool, ToolInputStandardSchema } from "@castellan/harness";
import { DeclarationError, findNonJson } from "@castellan/harness";
import type { Ajv as AjvInstance, ValidateFunction } from "ajv";
import { compilesLater } from "./plain-schema.js";

/** What a validator found: the input the call goes on with, or why it is invalid (for the model). */
export type InputCheck = { readonly input: JsonValue; readonly problem?: undefined } | { readonly problem: string };

/**
 * Checks a tool input. A JSON Schema keeps the input as given; a Standard Schema's output
 * replaces it (defaults filled in, values coerced), as an `admit` replacement does.
 */
export type InputValidator = (input: JsonValue) => InputCheck | Promise<InputCheck>;

// Tool schemas are checked when a Session opens; ajv, their engine, loads only when it is
// needed. The check against the draft-07 meta-schema runs a precompiled validator
// (draft-07-meta.generated.ts), so it needs no engine and compiles no meta-schema. A schema
// made only of keywords whose compile cannot fail (plain-schema.ts) is compiled on its tool's
// first call; the first Run starts the engine's load beside its first model request. Any other
// schema is compiled at open, loading ajv there. Importing the package, or opening a Session
// whose tools are plain, loads no ajv.
let engine: AjvInstance | undefined;
let loading: Promise<AjvInstance> | undefined;
/** The precompiled meta-schema validator, loaded by `prepareInputValidation`. */
let validateDraft07Schema: ValidateFunction | undefined;
let loadingMeta: Promise<void> | undefined;
/** Whether some validator compiles on first use: the first Run then prefetches the engine. */
let deferred = false;

/** Loads the schema engine once; later calls share it. */
export function loadInputValidation(): Promise<void> {
  loading ??= Promise.all([import("ajv"), loadMetaValidator()]).then(([{ Ajv }]) => {
    engine = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false });
    return engine;
  });
  return loading.then(() => undefined);
}

function loadMetaValidator(): Promise<void> {
  loadingMeta ??= import("./draft-07-meta.generated.js").then((meta) => {
    // The generated file is unchecked JavaScript; it is an ajv validate function.
    validateDraft07Schema = meta.validate as unknown as ValidateFunction;
  });
  return loadingMeta;
}

/**
 * Loads what checking `tools`' schemas at open needs: the meta-schema validator, and the
 * engine when one schema must be compiled now (or the engine is loaded already, and compiling
 * is cheap). The Session's admission calls it before binding the tools.
 */
export async function prepareInputValidation(tools: readonly Tool[]): Promise<void> {
  await loadMetaValidator();
  const eager = tools.some((tool) => !tool.inputStandardSchema && !compilesLater(tool.inputSchema));
  if (eager || engine) await loadInputValidation();
}

/** Starts loading the engine if a bound tool waits for it; never rejects (a call reports a failure). */
export function prefetchInputValidation(): void {
  if (deferred && !engine) loadInputValidation().catch(() => undefined);
}

const compiled = new WeakMap<object, ValidateFunction>();
/**
 * The same validators by schema text: every Runner builds its own tool objects, so without
 * this, 50 Sessions with one workspace compile its schemas 50 times on the event loop. A
 * validator is pure, so equal schemas share one. At most 512 kept; the oldest goes first.
 */
const compiledByText = new Map<string, ValidateFunction>();
const maxCompiledByText = 512;

/** ajv's own wording of a list of errors (`errorsText`), for the checks made before it loads. */
function errorsText(errors: ValidateFunction["errors"], dataVar: string): string {
  if (!errors || errors.length === 0) return "No errors";
  return errors.map((error) => `${dataVar}${error.instancePath} ${error.message}`).join(", ");
}

/**
 * Throws, as ajv's own compile would, when `schema` breaks its meta-schema. A schema naming
 * no `$schema` is draft-07 (ajv's default) and runs the precompiled validator; one that names a
 * `$schema` goes through ajv's lookup, so an unknown meta-schema is refused as ajv refuses it
 * (such a schema is never compiled later, so the engine is loaded).
 */
function checkSchema(schema: object): void {
  if ((schema as { $schema?: unknown }).$schema !== undefined) {
    if (!engine) throw new Error("A schema naming its $schema was checked before the engine loaded.");
    engine.validateSchema(schema, true);
    return;
  }
  if (!validateDraft07Schema) throw new Error("A schema was checked before prepareInputValidation resolved.");
  if (!validateDraft07Schema(schema))
    throw new Error(`schema is invalid: ${errorsText(validateDraft07Schema.errors, "data")}`);
}

/** The validator of `schema`, compiled at most once per schema text; `checked` when its meta check ran. */
function validatorOf(ajv: AjvInstance, schema: object, checked = false): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let validate = compiledByText.get(text);
  if (!validate) {
    if (!checked) checkSchema(schema);
    validate = ajv.compile(schema);
    compiledByText.set(text, validate);
    if (compiledByText.size > maxCompiledByText) compiledByText.delete(compiledByText.keys().next().value as string);
  }
  compiled.set(schema, validate);
  return validate;
}

/** The error a tool's unusable schema is, at open or (never expected) at its first call. */
function schemaError(tool: Tool, error: unknown): DeclarationError {
  return new DeclarationError(
    `Tool "${tool.name}": its inputSchema is not a valid JSON Schema: ${(error as Error).message}`,
    { cause: error },
  );
}

/**
 * A validator for a tool's input schema, its schema checked now. Call
 * `prepareInputValidation` with the tool first: the Session's admission does.
 */
export function compileInputValidator(tool: Tool): InputValidator {
  if (tool.inputStandardSchema) return standardValidator(tool.inputStandardSchema);
  const schema = tool.inputSchema as object;
  const settle = (ajv: AjvInstance, check: ValidateFunction, input: JsonValue): InputCheck =>
    check(input) ? { input } : { problem: ajv.errorsText(check.errors, { dataVar: "input" }) };
  if (!engine && compilesLater(schema)) {
    try {
      checkSchema(schema);
    } catch (error) {
      throw schemaError(tool, error);
    }
    deferred = true;
    let check: ValidateFunction | undefined;
    return async (input) => {
      await loadInputValidation();
      const ajv = engine as AjvInstance;
      if (!check) {
        try {
          check = validatorOf(ajv, schema, true);
        } catch (error) {
          throw schemaError(tool, error);
        }
      }
      return settle(ajv, check, input);
    };
  }
  const ajv = engine;
  if (!ajv) throw new Error("compileInputValidator was called before prepareInputValidation resolved.");
  let check: ValidateFunction;
  try {
    check = validatorOf(ajv, schema);
  } catch (error) {
    throw schemaError(tool, error);
  }
  return (input) => settle(ajv, check, input);
}

/**
 * A Standard Schema's own validation, with its issues written the way ajv writes errors
 * (`input/path message`, joined by ", ") so the model reads one shape whichever schema a tool uses.
 */
function standardValidator(schema: ToolInputStandardSchema): InputValidator {
  const settle = (result: Awaited<ReturnType<ToolInputStandardSchema["~standard"]["validate"]>>): InputCheck => {
    if (result.issues) {
      const problems = result.issues.map((issue) => {
        const path = (issue.path ?? [])
          .map((segment) => String(typeof segment === "object" ? segment.key : segment))
          .join("/");
        return `${path ? `input/${path}` : "input"} ${issue.message}`;
      });
      return { problem: problems.join(", ") || "input is invalid" };
    }
    const nonJson = findNonJson(result.value);
    if (nonJson !== undefined) return { problem: `the schema's output is not JSON at ${nonJson}` };
    return { input: result.value as JsonValue };
  };
  return (input) => {
    const result = schema["~standard"].validate(input);
    return result instanceof Promise ? result.then(settle) : settle(result);
  };
}

/**
 * Validates `value` against a JSON Schema given at run time (not a tool's): undefined when it
 * fits, a message when not. Call `loadInputValidation` first.
 */
export function validateAgainst(schema: object, value: unknown): string | undefined {
  const ajv = engine;
  if (!ajv) throw new Error("validateAgainst was called before loadInputValidation resolved.");
  const validate = validatorOf(ajv, schema);
  if (validate(value)) return undefined;
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath || "the value"} ${error.message ?? "is invalid"}`)
    .join("; ");
}
