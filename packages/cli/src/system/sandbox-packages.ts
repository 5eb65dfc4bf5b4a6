/** The Debian packages of the OS sandbox's programs, in the order the doctor lists them. */
export const sandboxPackages: Readonly<Record<"bwrap" | "socat" | "rg", string>> = Object.freeze({
  bwrap: "bubblewrap",
  socat: "socat",
  rg: "ripgrep",
});

/** The install line for the sandbox's packages, e.g. `apt-get install -y bubblewrap socat ripgrep`. */
export function sandboxInstallLine(programs: readonly string[] = Object.keys(sandboxPackages)): string {
  const packages = programs.map((program) => sandboxPackages[program as keyof typeof sandboxPackages] ?? program);
  return `apt-get install -y ${packages.join(" ")}`;
}
