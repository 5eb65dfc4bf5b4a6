import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { DeclarationError } from "./errors.js";
import { findNonJson, type JsonObject } from "./json.js";

/**
 * A Standard Schema of a tool's input (Zod 4, Valibot, ArkType and others implement it):
 * `execute` receives what its `~standard.validate` outputs.
 */
export type ToolInputStandardSchema<Output = unknown> = StandardSchemaV1<unknown, Output>;

/** True for a value that implements Standard Schema v1 (`~standard` with version 1 and `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: { version?: unknown; validate?: unknown } })["~standard"];
  return props?.version === 1 && typeof props.validate === "function";
}

/**
 * The JSON Schema the model is shown for a Standard Schema: the schema's own Standard JSON
 * Schema conversion of its input, for draft-07 (with Zod 4 this is `z.toJSONSchema`), without
 * the `$schema` key providers do not want.
 *
 * @throws DeclarationError when the schema cannot describe itself (no `~standard.jsonSchema`), its
 * conversion fails, or it is not a JSON object schema.
 */
export function standardInputJsonSchema(schema: StandardSchemaV1, where: string): JsonObject {
  const props = schema["~standard"] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  if (typeof props.jsonSchema?.input !== "function") {
    throw new DeclarationError(
      `${where}: inputSchema is a "${props.vendor}" Standard Schema that cannot describe itself as JSON Schema ` +
        "(it has no ~standard.jsonSchema). Wrap it in its library's Standard JSON Schema converter (for Valibot, " +
        "toStandardJsonSchema from @valibot/to-json-schema), or give a JSON Schema object instead.",
    );
  }
  let converted: Record<string, unknown>;
  try {
    converted = props.jsonSchema.input({ target: "draft-07" });
  } catch (error) {
    throw new DeclarationError(
      `${where}: the "${props.vendor}" schema could not be converted to JSON Schema: ${(error as Error)?.message ?? error}`,
      { cause: error },
    );
  }
  const { $schema: _dialect, ...rest } = converted ?? {};
  const nonJson = findNonJson(rest);
  if (nonJson) throw new DeclarationError(`${where}: the converted JSON Schema is not JSON at ${nonJson}.`);
  return rest as JsonObject;
}
