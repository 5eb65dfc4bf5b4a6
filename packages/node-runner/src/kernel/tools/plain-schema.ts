// Which JSON Schemas ajv can compile later without changing what a Session's open reports. The
// meta-schema check finds every malformed value; what is left for ajv's compile to refuse
// comes from a few keywords only (a `$ref` that resolves nowhere, a `pattern` that is no
// regular expression, an empty `enum`, `nullable` without `type`, an `$id` met twice, a
// `$schema` ajv does not know). A schema made only of the keywords below, with no empty
// `enum`, is one ajv's compile accepts once the meta-schema did; anything else is compiled
// when the Session opens, as before.

/** Keywords whose subschemas are schemas themselves, by the shape they hold them in. */
const schemaKeywords = new Set([
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
const schemaArrayKeywords = new Set(["allOf", "anyOf", "oneOf"]);
const schemaMapKeywords = new Set(["properties"]);

/** Keywords that hold no subschema and that ajv's compile never refuses in a meta-valid schema. */
const valueKeywords = new Set([
  "type",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "required",
  "title",
  "description",
  "default",
  "examples",
  "readOnly",
  "writeOnly",
  "$comment",
  "format",
  "contentMediaType",
  "contentEncoding",
]);

/** At most this deep is walked; a deeper schema is simply compiled at open. */
const maxDepth = 64;

/**
 * True when `schema` (already accepted by the draft-07 meta-schema) uses only keywords whose
 * compile cannot fail, so its validator may be compiled on first use. Conservative: an
 * unknown keyword, a reference, a pattern or a deep schema answers false.
 */
export function compilesLater(schema: unknown, depth = 0): boolean {
  if (typeof schema === "boolean") return true;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema) || depth > maxDepth) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    if (valueKeywords.has(keyword)) continue;
    if (keyword === "enum") {
      if (!Array.isArray(value) || value.length === 0) return false;
      continue;
    }
    if (schemaKeywords.has(keyword)) {
      if (!compilesLater(value, depth + 1)) return false;
      continue;
    }
    if (keyword === "items") {
      const items = Array.isArray(value) ? value : [value];
      if (!items.every((item) => compilesLater(item, depth + 1))) return false;
      continue;
    }
    if (schemaArrayKeywords.has(keyword)) {
      if (!Array.isArray(value) || !value.every((item) => compilesLater(item, depth + 1))) return false;
      continue;
    }
    if (schemaMapKeywords.has(keyword) || keyword === "dependencies") {
      if (typeof value !== "object" || value === null) return false;
      for (const member of Object.values(value)) {
        // A dependency is a schema or a list of property names.
        if (keyword === "dependencies" && Array.isArray(member)) continue;
        if (!compilesLater(member, depth + 1)) return false;
      }
      continue;
    }
    return false;
  }
  return true;
}
