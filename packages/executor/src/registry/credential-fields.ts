import { z } from "zod";

/**
 * What a body schema says about one of its nodes: a `value` node holds a credential itself; a
 * `named-entries` node is an object whose `secretKeys` name the entries of its `env` or
 * `headers` map that are credentials (a tool server's).
 */
export type CredentialMark = { readonly kind: "value" } | { readonly kind: "named-entries" };

/**
 * Where the credentials of a body sit, found by {@link credentialFieldsOf}: each path of object
 * keys (`*` stands for every element of an array) with its mark.
 */
export type CredentialFields = readonly { readonly path: readonly string[]; readonly mark: CredentialMark }[];

/**
 * The marks of a body schema's credential nodes. A schema marks a node with
 * {@link credentialValue} or {@link credentialEntries}; the registry's record, its identity and
 * its redactor read the paths from the schema, so where a credential sits is declared once.
 */
export const credentialMarks = z.registry<CredentialMark>();

/** Marks a string schema as a credential: never on disk with the record, never in its identity, scrubbed from output. */
export function credentialValue<Schema extends z.ZodType<string>>(schema: Schema): Schema {
  credentialMarks.add(schema, { kind: "value" });
  return schema;
}

/**
 * Marks an object schema whose `secretKeys` name the credential entries of its `env` or
 * `headers` (the rest of those maps stays in the record). Register it last: a refinement after
 * it is a new schema without the mark.
 */
export function credentialEntries<Schema extends z.ZodType>(schema: Schema): Schema {
  credentialMarks.add(schema, { kind: "named-entries" });
  return schema;
}

/** The deepest a body schema is walked; a schema deeper than this is refused, not half read. */
const maxDepth = 32;

/**
 * The credential fields of a body schema, in the order its shape declares them. Walks objects,
 * arrays (`*`), unions (every option at the same path), and the wrappers `optional`,
 * `nullable`, `default`, `readonly` and `pipe` (its input). Throws for a schema nested deeper
 * than 32 levels.
 */
export function credentialFieldsOf(schema: z.ZodType): CredentialFields {
  const found: { path: readonly string[]; mark: CredentialMark }[] = [];
  const seen = new Set<string>();
  const visit = (node: z.ZodType, path: readonly string[], depth: number): void => {
    if (depth > maxDepth) throw new Error(`A body schema nests deeper than ${maxDepth} levels at ${path.join(".")}.`);
    const mark = credentialMarks.get(node);
    if (mark) {
      const key = `${mark.kind}:${path.join("\u0000")}`;
      if (!seen.has(key)) found.push({ path, mark });
      seen.add(key);
    }
    if (node instanceof z.ZodObject) {
      for (const [name, field] of Object.entries(node.shape as Record<string, z.ZodType>)) {
        visit(field, [...path, name], depth + 1);
      }
    } else if (node instanceof z.ZodArray) {
      visit(node.element as z.ZodType, [...path, "*"], depth + 1);
    } else if (node instanceof z.ZodUnion) {
      for (const option of node.options as readonly z.ZodType[]) visit(option, path, depth + 1);
    } else if (
      node instanceof z.ZodOptional ||
      node instanceof z.ZodNullable ||
      node instanceof z.ZodDefault ||
      node instanceof z.ZodReadonly
    ) {
      visit(node.unwrap() as z.ZodType, path, depth + 1);
    } else if (node instanceof z.ZodPipe) {
      visit(node.in as z.ZodType, path, depth + 1);
    }
  };
  visit(schema, [], 0);
  return Object.freeze(found);
}
