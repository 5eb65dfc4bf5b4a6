import { providerTable } from "../models/provider-table.js";
import type { DoctorCheck } from "./doctor-check.js";

/**
 * One line per provider key variable: `set` or `not set`, never its value, length or prefix.
 * None is required on its own: `castellan` needs any one of them (see {@link anyProviderSet}).
 */
export function providerChecks(env: NodeJS.ProcessEnv): DoctorCheck[] {
  return providerTable.map((entry) =>
    isSet(env, entry.keyVariable)
      ? { check: `${entry.name} key`, status: "ok", detail: `${entry.keyVariable} set`, required: false }
      : {
          check: `${entry.name} key`,
          status: "missing",
          detail: `${entry.keyVariable} not set`,
          fix: `export ${entry.keyVariable}=... to use ${entry.name} (any one provider is enough)`,
          required: false,
        },
  );
}

/** Whether any provider's key is set: what plain `castellan` needs. */
export function anyProviderSet(env: NodeJS.ProcessEnv): boolean {
  return providerTable.some((entry) => isSet(env, entry.keyVariable));
}

function isSet(env: NodeJS.ProcessEnv, name: string): boolean {
  return (env[name]?.trim() ?? "") !== "";
}
