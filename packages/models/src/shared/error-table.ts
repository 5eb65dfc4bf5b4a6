// How a provider's failure is classified: one table per provider (HTTP statuses and the
// provider's error types), read by one function, so every adapter applies the same precedence.
import type { ModelErrorCode } from "@castellan/harness";

/**
 * A provider's error table. Each adapter keeps its own in one file (`<adapter>/error-table.ts`),
 * with the provider's documented statuses and error types.
 */
export interface ErrorTable {
  /** Statuses whose meaning does not depend on the body (401 is a refused key whatever it says). */
  readonly statuses: Readonly<Record<number, ModelErrorCode>>;
  /** The provider's error types or codes (`error.type`, `error.code`) and what they mean. */
  readonly types: Readonly<Record<string, ModelErrorCode>>;
  /** Types that decide whatever the status: a context overflow is one on a 400 and a 500 alike. Default none. */
  readonly decisive?: readonly string[];
  /** Types that asking again will not fix (an exhausted quota): their errors are not retryable. Default none. */
  readonly final?: readonly string[];
}

/** What an error says about itself: its HTTP status (none inside a stream) and its types, most specific first. */
export interface ErrorFacts {
  readonly status?: number | undefined;
  /** Candidate types, e.g. an OpenAI body's `code` then its `type`; anything not text is skipped. */
  readonly types: readonly unknown[];
}

/**
 * The code of a failure, in this order: a decisive type; the status's row; any other 5xx is
 * `model_server_error`; the first type with a row; any other 4xx is `model_bad_request`.
 * Undefined when nothing is known (an error event of an unknown type inside a stream): the
 * adapter decides, usually `model_server_error`.
 */
export function errorCode(table: ErrorTable, facts: ErrorFacts): ModelErrorCode | undefined {
  const types = facts.types.filter((type): type is string => typeof type === "string");
  const decisive = types.find((type) => table.decisive?.includes(type) && table.types[type] !== undefined);
  if (decisive !== undefined) return table.types[decisive];
  const { status } = facts;
  if (status !== undefined) {
    const byStatus = table.statuses[status];
    if (byStatus !== undefined) return byStatus;
    if (status >= 500) return "model_server_error";
  }
  for (const type of types) {
    const byType = Object.hasOwn(table.types, type) ? table.types[type] : undefined;
    if (byType !== undefined) return byType;
  }
  if (status !== undefined && status >= 400) return "model_bad_request";
  return undefined;
}

/** True when one of the facts' types is final: the error is then not retryable whatever its code. */
export function isFinal(table: ErrorTable, facts: ErrorFacts): boolean {
  return facts.types.some((type) => typeof type === "string" && (table.final?.includes(type) ?? false));
}

/** Freezes a table, so one adapter cannot change what another reads. */
export function errorTable(table: ErrorTable): ErrorTable {
  return Object.freeze({
    statuses: Object.freeze({ ...table.statuses }),
    types: Object.freeze({ ...table.types }),
    ...(table.decisive ? { decisive: Object.freeze([...table.decisive]) } : {}),
    ...(table.final ? { final: Object.freeze([...table.final]) } : {}),
  });
}
