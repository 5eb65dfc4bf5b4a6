/** A skill bound directly in a declaration: metadata now, its body only when activated. */
export interface SkillBinding {
  readonly kind: "skill";
  readonly name: string;
  readonly description: string;
  /** Reads the skill's instructions; called only on activation. */
  load(options: { readonly signal: AbortSignal }): Promise<string>;
}

/** A skill declaration: a direct binding, or a name the host's skill resolver looks up. */
export type SkillDeclaration = SkillBinding | string;
