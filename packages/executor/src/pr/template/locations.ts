/**
 * One place a repository keeps its PR template: a file, or a directory of templates (from which
 * the one named `defaultName`, else the only `.md` file, is taken). Path segments are matched
 * against the directory entries ignoring case.
 */
export type TemplateLocation =
  | { readonly kind: "file"; readonly segments: readonly string[] }
  | { readonly kind: "directory"; readonly segments: readonly string[]; readonly defaultName?: string };

/**
 * Where PR templates are looked for, first found first used: GitHub's three single-template
 * places, GitHub's template directory, then GitLab's merge request templates (`Default.md` there
 * being GitLab's own default).
 */
export const templateLocations: readonly TemplateLocation[] = Object.freeze([
  { kind: "file", segments: [".github", "pull_request_template.md"] },
  { kind: "file", segments: ["pull_request_template.md"] },
  { kind: "file", segments: ["docs", "pull_request_template.md"] },
  { kind: "directory", segments: [".github", "PULL_REQUEST_TEMPLATE"] },
  { kind: "directory", segments: [".gitlab", "merge_request_templates"], defaultName: "Default.md" },
]);
