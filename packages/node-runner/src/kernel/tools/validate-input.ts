import type { JsonValue, Tool } from "@castellan/harness";
import { DeclarationError } from "@castellan/harness";
import type { Ajv as AjvInstance, ValidateFunction } from "ajv";

/** Checks a tool input; returns undefined when valid, or a message for the model. */
export type InputValidator = (input: JsonValue) => string | undefined;

// The JSON Schema engine is loaded and made when the first Session with tools opens, not when
// the package is imported: loading ajv and compiling its meta-schemas costs tens of
// milliseconds a program without tools (or one that only imports the package) need not pay.
let engine: AjvInstance | undefined;
let loading: Promise<AjvInstance> | undefined;

/** Loads the schema engine once; later calls share it. */
export function loadInputValidation(): Promise<void> {
  loading ??= import("ajv").then(({ Ajv }) => {
    engine = new Ajv({ allErrors: true, strict: false, validateFormats: false });
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

/** The validator of `schema`, compiled at most once per schema text. */
function validatorOf(ajv: AjvInstance, schema: object): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let validate = compiledByText.get(text);
  if (!validate) {
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
  return (input) => {
    if (check(input)) return undefined;
    return ajv.errorsText(check.errors, { dataVar: "input" });
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
