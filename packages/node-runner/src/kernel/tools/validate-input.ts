import type { JsonValue, Tool, ToolInputStandardSchema } from "@castellan/harness";
import { DeclarationError, findNonJson } from "@castellan/harness";
import type { Ajv as AjvInstance, ValidateFunction } from "ajv";

/** What a validator found: the input the call goes on with, or why it is invalid (for the model). */
export type InputCheck = { readonly input: JsonValue; readonly problem?: undefined } | { readonly problem: string };

/**
 * Checks a tool input. A JSON Schema keeps the input as given; a Standard Schema's output
 * replaces it (defaults filled in, values coerced), as an `admit` replacement does.
 */
export type InputValidator = (input: JsonValue) => InputCheck | Promise<InputCheck>;

// The JSON Schema engine is loaded and made when the first Session with tools opens, not when
// the package is imported: loading ajv costs milliseconds a program without tools (or one that
// only imports the package) need not pay. The engine does not check schemas against the
// meta-schema itself (compiling the meta-schema would cost ~20 ms of the first open):
// `checkSchema` does, with the precompiled draft-07 validator.
let engine: AjvInstance | undefined;
let loading: Promise<AjvInstance> | undefined;

/** Loads the schema engine once; later calls share it. */
export function loadInputValidation(): Promise<void> {
  loading ??= Promise.all([import("ajv"), import("./draft-07-meta.generated.js")]).then(([{ Ajv }, meta]) => {
    // The generated file is unchecked JavaScript; it is an ajv validate function.
    validateDraft07Schema = meta.validate as unknown as ValidateFunction;
    engine = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false });
    return engine;
  });
  return loading.then(() => undefined);
}

const compiled = new WeakMap<object, ValidateFunction>();
/**
 * The same validators by schema text: every Runner builds its own tool objects, so without
 * this, 50 Sessions with one workspace compile its schemas 50 times on the event loop. A
 * validator is pure, so equal schemas share one. At most 512 kept; the oldest goes first.
 */
const compiledByText = new Map<string, ValidateFunction>();
const maxCompiledByText = 512;

/** The precompiled meta-schema validator, loaded with the engine. */
let validateDraft07Schema: ValidateFunction;

/**
 * Throws, as ajv's own compile would, when `schema` breaks its meta-schema. A schema naming
 * no `$schema` is draft-07 (ajv's default) and runs the precompiled validator; one that names a
 * `$schema` goes through ajv's lookup, so an unknown meta-schema is refused as ajv refuses it.
 */
function checkSchema(ajv: AjvInstance, schema: object): void {
  if ((schema as { $schema?: unknown }).$schema !== undefined) {
    ajv.validateSchema(schema, true);
    return;
  }
  if (!validateDraft07Schema(schema)) {
    throw new Error(`schema is invalid: ${ajv.errorsText(validateDraft07Schema.errors)}`);
  }
}

/** The validator of `schema`, compiled at most once per schema text. */
function validatorOf(ajv: AjvInstance, schema: object): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let validate = compiledByText.get(text);
  if (!validate) {
    checkSchema(ajv, schema);
    validate = ajv.compile(schema);
    compiledByText.set(text, validate);
    if (compiledByText.size > maxCompiledByText) compiledByText.delete(compiledByText.keys().next().value as string);
  }
  compiled.set(schema, validate);
  return validate;
}

/**
 * Compiles (once per schema object) a validator for a tool's input schema. Call
 * `loadInputValidation` first: the Session's admission does.
 */
export function compileInputValidator(tool: Tool): InputValidator {
  if (tool.inputStandardSchema) return standardValidator(tool.inputStandardSchema);
  const ajv = engine;
  if (!ajv) throw new Error("compileInputValidator was called before loadInputValidation resolved.");
  let check: ValidateFunction;
  try {
    check = validatorOf(ajv, tool.inputSchema as object);
  } catch (error) {
    throw new DeclarationError(
      `Tool "${tool.name}": its inputSchema is not a valid JSON Schema: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return (input) => (check(input) ? { input } : { problem: ajv.errorsText(check.errors, { dataVar: "input" }) });
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
