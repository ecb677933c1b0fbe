/**
 * Every reply of the corpus (test/corpus/replies.ts) gives its expected new text, never an
 * empty one when there is new text, and keeps the removed history in the quoted text.
 * The aggregate figures are bench/quality-replies.ts's.
 */
import { expect, test } from "bun:test";
import { splitReply } from "../src/mail/extract.ts";
import { REPLY_CASES } from "./corpus/replies.ts";
import { sameText } from "./corpus/score.ts";

test.each(REPLY_CASES.map((c) => [c.id, c] as const))("%s", (_id, c) => {
  const got = splitReply({ text: c.text ?? null, html: c.html ?? null });
  if (!sameText(got.text, c.reply)) expect(got.text).toBe(c.reply);
  if (c.reply) expect(got.text).not.toBe("");
  if (c.quoted) expect(got.quoted).toContain(c.quoted);
  // The signature marker of rendered HTML never reaches the text.
  expect(got.text).not.toContain("\ue000");
});
