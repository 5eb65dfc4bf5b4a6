import type { JsonValue, Tool } from "@castellan/harness";
import { DeclarationError } from "@castellan/harness";
import { Ajv, type ValidateFunction } from "ajv";

/** Checks a tool input; returns undefined when valid, or a message for the model. */
export type InputValidator = (input: JsonValue) => string | undefined;

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles (once per schema object) a validator for a tool's input schema. */
export function compileInputValidator(tool: Tool): InputValidator {
  let validate = compiled.get(tool.inputSchema);
  if (!validate) {
    try {
      validate = ajv.compile(tool.inputSchema as object);
    } catch (error) {
      throw new DeclarationError(
        `Tool "${tool.name}": its inputSchema is not a valid JSON Schema: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    compiled.set(tool.inputSchema, validate);
  }
  const check = validate;
  return (input) => {
    if (check(input)) return undefined;
    return ajv.errorsText(check.errors, { dataVar: "input" });
  };
}
