import type { z } from "zod";
import { type CredentialFields, credentialFieldsOf } from "../registry/credential-fields.js";
import { blueprintBodySchema } from "./body/blueprint-body.js";
import type { BodySchemaSettings } from "./body/body-fields.js";
import { bootstrapBodySchema } from "./body/bootstrap-body.js";
import { coderBodySchema } from "./body/coder-body.js";
import { firstPass } from "./phases/agent-pass.js";
import { blueprintCommit } from "./phases/blueprint.js";
import { cloneReference, publishHistory } from "./phases/bootstrap.js";
import { cloneTarget } from "./phases/clone.js";
import { installDependencies } from "./phases/install.js";
import { prTemplate, pullRequest } from "./phases/pull-request.js";
import { pushBranch } from "./phases/push.js";
import { reproduce } from "./phases/reproduce.js";
import { validate } from "./phases/validate.js";
import { defineJobKind, type JobKind } from "./run/job-kind.js";

/**
 * The job kinds this server runs, one row each (docs/adding-a-job-kind.md): the route that
 * submits it, its body's schema, and its phases over the shared phase functions.
 */
const rows = {
  /** `POST /run`: a change on the work branch, proved and validated, pushed, and its pull request. */
  coder: defineJobKind({
    route: "run",
    bodySchema: coderBodySchema,
    phases: {
      clone: cloneTarget,
      salvage: true,
      steps: [installDependencies, prTemplate, firstPass, reproduce, validate, pushBranch, pullRequest],
    },
  }),
  /** `POST /bootstrap`: a new history from a reference (or nothing), force-pushed to the target. */
  bootstrap: defineJobKind({
    route: "bootstrap",
    bodySchema: bootstrapBodySchema,
    phases: { clone: cloneReference, salvage: false, steps: [installDependencies, firstPass, publishHistory] },
  }),
  /** `POST /blueprint`: a commit of `blueprints/` only, pushed to the work branch. */
  blueprint: defineJobKind({
    route: "blueprint",
    bodySchema: blueprintBodySchema,
    phases: {
      clone: cloneTarget,
      salvage: false,
      steps: [installDependencies, firstPass, blueprintCommit, pushBranch],
    },
  }),
};

/** The name of a job kind: a record's `kind`. */
export type JobKindName = keyof typeof rows;

/** Each kind's checked body. */
export type JobKindBodies = {
  readonly [Name in JobKindName]: (typeof rows)[Name] extends JobKind<infer Body> ? Body : never;
};

/** The kinds' table, each row typed by its body. */
export const jobKinds: { readonly [Name in JobKindName]: JobKind<JobKindBodies[Name]> } = rows;

/** The kinds' names, in the table's order. */
export const jobKindNames = Object.freeze(Object.keys(rows)) as readonly JobKindName[];

/** Applies `make` to each kind, keeping the kind's own type in the answer. */
function byKind<Value extends { readonly [Name in JobKindName]: unknown }>(
  make: <Name extends JobKindName>(name: Name) => Value[Name],
): Value {
  return Object.fromEntries(jobKindNames.map((name) => [name, make(name)])) as Value;
}

/** Each kind's body schema, built once for the server's settings. */
export type JobBodySchemas = { readonly [Name in JobKindName]: z.ZodType<JobKindBodies[Name]> };

/** Builds each kind's body schema for the server's settings. */
export function jobBodySchemas(settings: BodySchemaSettings): JobBodySchemas {
  return byKind<JobBodySchemas>((name) => jobKinds[name].bodySchema(settings));
}

/** Where each kind's body holds credentials, read from its schema's marks. */
export function jobCredentialFields(schemas: JobBodySchemas): { readonly [Name in JobKindName]: CredentialFields } {
  return byKind((name) => credentialFieldsOf(schemas[name]));
}

/** Paths the server answers itself, which no kind may take as its route. */
const reservedRoutes: ReadonlySet<string> = new Set(["health", "jobs"]);

/**
 * The kind each route submits, checked: a route is one path segment of lowercase letters,
 * digits and `-`, not `health` or `jobs`, and no two kinds share one. Throws naming the
 * kinds at fault.
 */
export function kindRoutes<Name extends string>(
  kinds: {
    readonly [Kind in Name]: { readonly route: string };
  },
): ReadonlyMap<string, Name> {
  const routes = new Map<string, Name>();
  for (const name of Object.keys(kinds) as Name[]) {
    const { route } = kinds[name];
    if (!/^[a-z][a-z0-9-]{0,63}$/.test(route) || reservedRoutes.has(route)) {
      throw new Error(
        `Job kind ${name} has the route "${route}": a route is one lowercase segment, not health or jobs.`,
      );
    }
    const taken = routes.get(route);
    if (taken) throw new Error(`Job kinds ${taken} and ${name} both claim the route /${route}.`);
    routes.set(route, name);
  }
  return routes;
}

/** The kind each route of this server submits (`run` is `coder`). */
export const kindOfRoute: ReadonlyMap<string, JobKindName> = kindRoutes(jobKinds);
