import { DeclarationError } from "./errors.js";
import type { JsonObject } from "./json.js";
import type { SkillBinding } from "./skill.js";
import type { Tool } from "./tool.js";

/** An acquired resource and how to release it. */
export interface BindingLease<Value> {
  readonly value: Value;
  close(): Promise<void> | void;
  /**
   * Tools found at acquisition (an MCP server's catalog): they join the declaring capability for
   * this Session, checked like declared ones before the first projection. Default none.
   */
  readonly tools?: readonly Tool[];
  /** Skills found at acquisition (a directory's SKILL.md files): they join the capability likewise. Default none. */
  readonly skills?: readonly SkillBinding[];
}

/** What acquisition is given. */
export interface AcquireOptions {
  /** Aborted when the Session's opening is abandoned. */
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly params: JsonObject;
}

/** A typed kind of resource: it owns how a spec is acquired and released. */
export interface BindingKind<Spec, Value> {
  /** A name for errors and inspection, e.g. `instructions-file`. */
  readonly name: string;
  acquire(spec: Spec, options: AcquireOptions): Promise<BindingLease<Value>>;
  /**
   * A JSON reference to what `spec` names (e.g. `{ url }`), shown where the resource is not
   * acquired yet: `projectAgent`'s pending sections. Pure, no I/O. Default: none; the
   * reference then names only the kind.
   */
  describe?(spec: Spec): JsonObject;
}

/** Where a resource's spec is derived from the Session's parameters. */
export type ResourceSpec<Spec> = Spec | { readonly fromParams: (params: JsonObject) => Spec };

/**
 * A capability's request for a Session-scoped resource. The Runner acquires it once per
 * Session after the Program is built and releases it, in reverse order, on close. Tools and
 * sections read the value with `ctx.resource(request)`.
 */
export interface ResourceRequest<Spec, Value> {
  readonly kind: "resource";
  readonly binding: BindingKind<Spec, Value>;
  readonly spec: ResourceSpec<Spec>;
}

/**
 * A resource as one Session acquired it: a frozen handle whose `value` is the lease's value.
 * Tools read the handles of their own capability from `ctx.resources`.
 */
export interface BindingHandle<Value = unknown> {
  /** The binding kind's name, e.g. `instructions-file`. */
  readonly kind: string;
  /** The declared request this handle was acquired for (`ctx.resource(request)` reads the same value). */
  readonly request: ResourceRequest<unknown, Value>;
  /** The spec it was acquired with, after `fromParams` was applied. */
  readonly spec: unknown;
  /** The acquired value. */
  readonly value: Value;
}

/** Declares a resource of `binding` kind for `spec`. Nothing is acquired until a Session opens. */
export function resource<Spec, Value>(
  binding: BindingKind<Spec, Value>,
  spec: ResourceSpec<Spec>,
): ResourceRequest<Spec, Value> {
  if (!binding || typeof binding.acquire !== "function" || typeof binding.name !== "string") {
    throw new DeclarationError("resource(binding, spec) needs a binding kind with a name and an acquire function.");
  }
  return Object.freeze({ kind: "resource", binding, spec });
}

/** Resolves a resource spec for a Session's parameters. */
export function resolveResourceSpec<Spec>(spec: ResourceSpec<Spec>, params: JsonObject): Spec {
  if (spec !== null && typeof spec === "object" && "fromParams" in spec && typeof spec.fromParams === "function") {
    return spec.fromParams(params);
  }
  return spec as Spec;
}
