import { describe, expect, it } from "vitest";
import { SkillInvalidError } from "../../kernel/skills/errors.js";
import { parseSkillFile } from "./skill-file.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const file = "/skills/fix-tests/SKILL.md";

function fieldOf(text: string | Uint8Array, directory = "fix-tests"): string {
  try {
    parseSkillFile(typeof text === "string" ? bytes(text) : text, file, directory);
  } catch (error) {
    expect(error).toBeInstanceOf(SkillInvalidError);
    expect((error as SkillInvalidError).code).toBe("skill_invalid");
    expect((error as Error).message).toContain(file);
    return (error as SkillInvalidError).field;
  }
  return "valid";
}

describe("parseSkillFile", () => {
  it("reads name, description, the other keys as metadata, and the body; BOM and CRLF accepted", () => {
    const parsed = parseSkillFile(
      bytes(
        "\uFEFF---\r\nname: fix-tests\r\ndescription: Fix failing tests\r\nlicense: MIT\r\nallowed-tools: [exec_command]\r\n---\r\n# Fix\r\nRun them.\r\n",
      ),
      file,
      "fix-tests",
    );
    expect(parsed).toEqual({
      name: "fix-tests",
      description: "Fix failing tests",
      metadata: { license: "MIT", "allowed-tools": ["exec_command"] },
      body: "# Fix\nRun them.\n",
    });
  });

  it.each([
    ["no front matter", "# Fix\n", "front matter"],
    ["an unclosed front matter", "---\nname: fix-tests\ndescription: d\n", "front matter"],
    ["YAML that does not parse", "---\nname: [unclosed\n---\n", "front matter"],
    ["a front matter that is a list", "---\n- a\n- b\n---\n", "front matter"],
    ["a missing name", "---\ndescription: d\n---\n", "name"],
    ["an uppercase name", "---\nname: Fix-Tests\ndescription: d\n---\n", "name"],
    ["a name with a double dash", "---\nname: fix--tests\ndescription: d\n---\n", "name"],
    ["a name over 64 characters", `---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`, "name"],
    ["a name that is not its directory's", "---\nname: other\ndescription: d\n---\n", "name"],
    ["a missing description", "---\nname: fix-tests\n---\n", "description"],
    ["an empty description", '---\nname: fix-tests\ndescription: ""\n---\n', "description"],
    [
      "a description over 1,024 characters",
      `---\nname: fix-tests\ndescription: ${"d".repeat(1_025)}\n---\n`,
      "description",
    ],
    [
      "a front matter closing after 16 KiB",
      `---\nname: fix-tests\ndescription: d\nnote: ${"x".repeat(16_400)}\n---\n`,
      "front matter",
    ],
    ["a file over 128 KiB", `---\nname: fix-tests\ndescription: d\n---\n${"x".repeat(131_072)}`, "size"],
  ])("refuses %s (skill_invalid naming the field)", (_case, text, field) => {
    expect(fieldOf(text)).toBe(field);
  });

  it("refuses a file that is not UTF-8", () => {
    expect(fieldOf(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]))).toBe("encoding");
  });
});
