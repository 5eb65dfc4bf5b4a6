// The conversation fold resumes from the previous request when the new one extends it with the
// same message objects, and folds afresh otherwise; each conversation keeps its own fold.
import type { Message } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { ConversationFold } from "../../src/shared/conversation-fold.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

function countingFold() {
  const added: string[] = [];
  const fold = new ConversationFold<string[]>({
    start: () => [],
    add(state, message) {
      const text = message.role === "user" && message.content[0]?.type === "text" ? message.content[0].text : "?";
      added.push(text);
      state.push(text);
    },
  });
  return { fold, added };
}

describe("ConversationFold", () => {
  it("adds only the new messages of a request that extends the last one", () => {
    const { fold, added } = countingFold();
    const [a, b, c, d] = ["a", "b", "c", "d"].map(user) as [Message, Message, Message, Message];
    expect(fold.run([a, b])).toEqual(["a", "b"]);
    expect(fold.run([a, b, c])).toEqual(["a", "b", "c"]);
    expect(fold.run([a, b, c, d])).toEqual(["a", "b", "c", "d"]);
    expect(added).toEqual(["a", "b", "c", "d"]);
  });

  it("folds afresh when a message was replaced, dropped or the request is shorter", () => {
    const { fold, added } = countingFold();
    const [a, b, c] = ["a", "b", "c"].map(user) as [Message, Message, Message];
    fold.run([a, b, c]);
    added.length = 0;
    // b replaced by an equal but new object: not the same message.
    expect(fold.run([a, user("b"), c])).toEqual(["a", "b", "c"]);
    expect(added).toEqual(["a", "b", "c"]);
    added.length = 0;
    expect(fold.run([a, b])).toEqual(["a", "b"]);
    expect(added).toEqual(["a", "b"]);
  });

  it("keeps one fold per conversation, and does not see later changes to the caller's array", () => {
    const { fold, added } = countingFold();
    const first = [user("x1"), user("x2")];
    const second = [user("y1")];
    fold.run(first);
    fold.run(second);
    added.length = 0;
    fold.run([...first, user("x3")]);
    fold.run([...second, user("y2")]);
    expect(added).toEqual(["x3", "y2"]);
    // The caller changing its array after a run does not fool the next one.
    const changing = [user("z1"), user("z2")];
    fold.run(changing);
    changing[1] = user("z2'");
    added.length = 0;
    fold.run([...changing, user("z3")]);
    expect(added).toEqual(["z1", "z2'", "z3"]);
  });

  it("folds an empty conversation to a new empty state", () => {
    const { fold } = countingFold();
    expect(fold.run([])).toEqual([]);
  });
});
