import { describe, expect, test } from "bun:test";
import { findActionItems, findDecisions, findQuestions } from "../src/intel/local/cues.ts";
import { bareSubject, clip, sentences, terms } from "../src/intel/local/text.ts";

/** A Monday, mid-morning UTC: relative dates below resolve against it. */
const MONDAY = new Date("2024-03-04T10:00:00Z");
const texts = (t: string) => sentences(t).map((s) => s.text);
const kinds = (t: string) => sentences(t).map((s) => `${s.kind}: ${s.text}`);

describe("sentences", () => {
  test("joins wrapped lines, keeps abbreviations, decimals and links inside sentences", () => {
    expect(
      texts(`I met Mr. Smith of Acme Inc. and Dr. Lee yesterday. They think the $1.50 fee (e.g. for
extra seats) is fine, i.e. no change. See https://example.com/doc?id=3. It costs approx. 5 dollars
per seat. J. Doe agrees!`),
    ).toEqual([
      "I met Mr. Smith of Acme Inc. and Dr. Lee yesterday.",
      "They think the $1.50 fee (e.g. for extra seats) is fine, i.e. no change.",
      "See https://example.com/doc?id=3.",
      "It costs approx. 5 dollars per seat.",
      "J. Doe agrees!",
    ]);
  });

  test("greeting, bullets, sign-off and the name under it are told apart", () => {
    const s = sentences(`Hi Bob,

Next steps:
- Review the contract
* Send the invoice
2) Book the room for 3 p.m. Tuesday

Thanks,
Jane Doe
Head of Sales, Acme Inc.`);
    expect(s.map((x) => [x.kind, x.bullet, x.text])).toEqual([
      ["greeting", false, "Hi Bob,"],
      ["body", false, "Next steps:"],
      ["body", true, "Review the contract"],
      ["body", true, "Send the invoice"],
      ["body", true, "Book the room for 3 p.m. Tuesday"],
      ["closing", false, "Thanks,"],
      ["closing", false, "Jane Doe"],
      ["closing", false, "Head of Sales, Acme Inc."],
    ]);
  });

  test("a greeting on the same line as the first sentence is split off", () => {
    expect(kinds("Hi Bob, can you call me back? Best, Jane")).toEqual([
      "greeting: Hi Bob,",
      "body: can you call me back?",
      "closing: Best, Jane",
    ]);
  });

  test("\"Thanks for …\" and \"Thanks! That works\" are not sign-offs", () => {
    expect(kinds("Thanks for the quick reply.\nThanks! That works for me. I'll send it over.")).toEqual([
      "body: Thanks for the quick reply.",
      "closing: Thanks!",
      "body: That works for me.",
      "body: I'll send it over.",
    ]);
  });

  test("a bare name on the last line signs off", () => {
    expect(kinds("Report ID is R-20931.\n\nDana")).toEqual(["body: Report ID is R-20931.", "closing: Dana"]);
  });

  test("quoted lines, the signature after \"-- \" and footers are dropped or tagged", () => {
    expect(
      kinds(`Works for me.
> Can you do Friday?
> Bob

-- 
Jane Doe | Acme`),
    ).toEqual(["body: Works for me."]);
    expect(kinds("Unsubscribe | View in browser\n© 2024 Acme Inc. All rights reserved.\nSent from my iPhone")).toEqual([
      "boilerplate: Unsubscribe | View in browser",
      "boilerplate: © 2024 Acme Inc. All rights reserved.",
      "boilerplate: Sent from my iPhone",
    ]);
    expect(kinds("https://example.com/only\n-----\n42")).toEqual([
      "noise: https://example.com/only",
      "noise: -----",
      "noise: 42",
    ]);
  });

  test("text without sentence ends is cut into bounded pieces", () => {
    const s = sentences("word ".repeat(5000));
    expect(s.length).toBeGreaterThan(1);
    for (const x of s) expect(x.text.length).toBeLessThanOrEqual(600);
  });

  test("terms drop stop words and links and fold plurals", () => {
    expect(terms("Please send the invoices to billing@acme.example via https://x.example/pay today")).toEqual([
      "send",
      "invoice",
      "via",
      "today",
    ]);
  });

  test("clip and bareSubject", () => {
    expect(clip("one two three four five", 12)).toBe("one two…");
    expect(clip("short", 12)).toBe("short");
    expect(bareSubject("Re: Fwd: RE: Invoice #12")).toBe("Invoice #12");
    expect(bareSubject("Re[2]: AW: Termin")).toBe("Termin");
  });
});

describe("findQuestions", () => {
  test("direct and indirect questions of the reader", () => {
    expect(
      findQuestions(`Hi Sarah,

Would Tuesday at 2pm work for you? I was wondering if Sam could join as well.
Could you let me know whether the room has a projector. Thoughts?

Thanks,
Tom`),
    ).toEqual([
      { text: "Would Tuesday at 2pm work for you?" },
      { text: "I was wondering if Sam could join as well." },
      { text: "Could you let me know whether the room has a projector." },
      { text: "Thoughts?" },
    ]);
  });

  test("skips polite closers, exclamations, quoted history and signatures", () => {
    expect(
      findQuestions(`The report is attached. If you have any questions, just let me know.
Can you believe it?! Really?

> Did you get my last email?

-- 
Why not visit our website?`),
    ).toEqual([]);
  });

  test("skips rhetorical questions in bulk mail", () => {
    expect(
      findQuestions(`Ready to save? Our summer sale is here. Looking for a new laptop?
Why wait? Is your team spending too long on email?

Unsubscribe | Manage preferences`),
    ).toEqual([]);
  });
});

describe("findActionItems", () => {
  test("requests by phrase, with due dates resolved against the message date", () => {
    expect(
      findActionItems(
        `Could you send the signed copy by Friday? Don’t forget to renew the domain before March 15.
Please confirm the 3 p.m. slot works. Kindly update the shared sheet. We need you to sign off tomorrow.
Make sure the demo runs. Remember to bring your badge. ACTION REQUIRED: verify your account.`,
        MONDAY,
      ),
    ).toEqual([
      { text: "Could you send the signed copy by Friday?", due: "2024-03-08" },
      { text: "Don’t forget to renew the domain before March 15.", due: "2024-03-15" },
      // A time of day names no date.
      { text: "Please confirm the 3 p.m. slot works.", due: null },
      { text: "Kindly update the shared sheet.", due: null },
      { text: "We need you to sign off tomorrow.", due: "2024-03-05" },
      { text: "Make sure the demo runs.", due: null },
      { text: "Remember to bring your badge.", due: null },
      { text: "ACTION REQUIRED: verify your account.", due: null },
    ]);
  });

  test("imperative bullets, and every bullet under a to-do heading", () => {
    expect(
      findActionItems(
        `Notes from today:
- Budget looks fine
- Review the contract

Action items:
- Legal: the NDA by end of month
- Send the invoice to finance`,
        MONDAY,
      ),
    ).toEqual([
      { text: "Review the contract", due: null },
      { text: "Legal: the NDA by end of month", due: "2024-03-31" },
      { text: "Send the invoice to finance", due: null },
    ]);
  });

  test("polite phrases that ask nothing are not requests", () => {
    expect(
      findActionItems(
        `Please find attached the slides. Please note the office is closed Monday.
If you have any questions, please contact us. Please don't hesitate to reach out.`,
        MONDAY,
      ),
    ).toEqual([]);
  });

  test("results are copies: editing one does not change the next", () => {
    const first = findActionItems("Please call me on Friday.", MONDAY);
    first[0]!.text = "changed";
    expect(findActionItems("Please call me on Friday.", MONDAY)).toEqual([{ text: "Please call me on Friday.", due: "2024-03-08" }]);
  });
});

describe("findDecisions", () => {
  test("decisions stated", () => {
    expect(
      findDecisions(`We decided to ship the fix today. After the call we agreed on $1.50 per seat.
Let's go with the blue option. The budget was approved. Final decision: no offsite this year.
Going forward we'll send the report on Mondays. Your booking is confirmed.`),
    ).toEqual([
      { text: "We decided to ship the fix today." },
      { text: "After the call we agreed on $1.50 per seat." },
      { text: "Let's go with the blue option." },
      { text: "The budget was approved." },
      { text: "Final decision: no offsite this year." },
      { text: "Going forward we'll send the report on Mondays." },
      { text: "Your booking is confirmed." },
    ]);
  });

  test("questions, hedges and conditions are not decisions", () => {
    expect(
      findDecisions(`Have we decided on the venue? If we agree on the price, we will sign. We'll see how it goes.
Maybe we will go with plan B. The invoice is pending approval, not yet approved.`),
    ).toEqual([]);
  });
});

describe("untrusted input", () => {
  const hostile: Record<string, string> = {
    "1 MB without spaces": "a".repeat(1_000_000),
    "1 MB of dots": ".".repeat(1_000_000),
    "dot-space runs": ". ".repeat(500_000),
    "abbreviations only": "Mr. ".repeat(250_000),
    "at signs": "@".repeat(1_000_000),
    "address-like tokens": "a@b.c ".repeat(150_000),
    "one huge link": `https://x.example/${"a".repeat(999_000)}`,
    "closing brackets": `${"?".repeat(1000)}${")".repeat(500_000)}`,
    "only newlines": "\n".repeat(1_000_000),
    "only quotes": "> quoted\n".repeat(100_000),
    "digits and commas": `${"1,".repeat(500_000)}usd`,
    "greeting words": "Hi ".repeat(300_000),
    "sign-off commas": `Thanks${",".repeat(100_000)}`,
    "many short sentences": "Ab. ".repeat(250_000),
    "CJK full stops": "請確認。".repeat(200_000),
    "control characters": "\u0000\u200b\u2028\ufeff".repeat(200_000),
  };
  for (const [name, text] of Object.entries(hostile)) {
    test(name, () => {
      expect(Array.isArray(findQuestions(text))).toBe(true);
      expect(findActionItems(text, MONDAY).length).toBeLessThanOrEqual(50);
      expect(Array.isArray(findDecisions(text))).toBe(true);
    });
  }

  test("an invalid reference date gives no dates rather than throwing", () => {
    expect(findActionItems("Please reply by Friday.", new Date(Number.NaN))).toHaveLength(1);
  });
});
