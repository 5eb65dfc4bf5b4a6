import { assertNoSecret } from "../../support/secrets.ts";
import { KEY } from "./key.ts";

/** Asserts the suite's key is in nothing observable of `values` (JSON, errors and their causes included). */
export function assertNoKey(...values: unknown[]): void {
  assertNoSecret(KEY, ...values);
}
