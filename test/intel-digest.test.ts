import { describe, expect, test } from "bun:test";
import { digest } from "../src/intel/local/digest.ts";
import type { IntelMessage, IntelThread } from "../src/intel/types.ts";

const SELF = "support@mailroom.example";
const DANA = "dana@customer.example";

function msg(id: string, direction: IntelMessage["direction"], at: string, text: string, extra: Partial<IntelMessage> = {}): IntelMessage {
  const inbound = direction === "inbound";
  return {
    id,
    direction,
    from: inbound ? DANA : SELF,
    fromName: inbound ? "Dana Reyes" : "Mailroom Support",
    to: [inbound ? SELF : DANA],
    cc: [],
    subject: `${id === "m1" ? "" : "Re: "}Export fails with error 500`,
    text,
    date: new Date(at),
    ...extra,
  };
}

const thread = (messages: IntelMessage[], extra: Partial<IntelThread> = {}): IntelThread => ({
  id: "t1",
  subject: "Export fails with error 500",
  status: "open",
  // The mailbox's address may be written with any case.
  self: "Support@Mailroom.Example",
  messages,
  ...extra,
});

/** A support back-and-forth: problem, follow-up question, answer, fix. */
const SUPPORT = [
  msg(
    "m1",
    "inbound",
    "2024-05-06T09:00:00Z",
    `Hi,

Since this morning every CSV export from the reports page fails with an error 500. We need the
export for our board meeting on Thursday. Is this a known issue? Can you look into it urgently?

Thanks,
Dana`,
    { cc: ["Ops@Customer.example"] },
  ),
  msg(
    "m2",
    "outbound",
    "2024-05-06T10:30:00Z",
    `Hi Dana,

Thanks for the report, and sorry for the trouble. We can reproduce the export error on our side.
Could you send us the report ID and the time of the last failed attempt?

Best,
Sam`,
  ),
  msg(
    "m3",
    "inbound",
    "2024-05-06T11:00:00Z",
    `Report ID is R-20931, last attempt at 10:55 UTC. Please make sure this is fixed before Thursday May 9.

> Could you send us the report ID and the time of the last failed attempt?

Dana`,
  ),
  msg(
    "m4",
    "outbound",
    "2024-05-07T08:00:00Z",
    `Hi Dana,

We found the cause: a timeout on large date ranges. We decided to ship the fix today, and we
will raise the export limit to 50,000 rows. Please try the export again after 2pm UTC and let
me know whether it works. Did the board deck need the full year or just Q1?

Best,
Sam`,
    { fromName: "Sam from Support" },
  ),
];

describe("digest: a support thread", () => {
  const d = digest(thread(SUPPORT));

  test("participants: every address once, with sent counts, latest name and our own role", () => {
    expect(d.participants).toEqual([
      { address: DANA, name: "Dana Reyes", role: "external", messages: 2 },
      { address: SELF, name: "Sam from Support", role: "self", messages: 2 },
      { address: "ops@customer.example", name: null, role: "external", messages: 0 },
    ]);
  });

  test("timeline: one line per message, oldest first", () => {
    expect(d.timeline.map((e) => [e.message_id, e.at, e.from, e.direction])).toEqual([
      ["m1", "2024-05-06T09:00:00.000Z", DANA, "inbound"],
      ["m2", "2024-05-06T10:30:00.000Z", SELF, "outbound"],
      ["m3", "2024-05-06T11:00:00.000Z", DANA, "inbound"],
      ["m4", "2024-05-07T08:00:00.000Z", SELF, "outbound"],
    ]);
    for (const e of d.timeline) {
      expect(e.summary.length).toBeGreaterThan(0);
      expect(e.summary.length).toBeLessThanOrEqual(160);
      expect(e.summary).not.toContain("\n");
    }
    expect(d.timeline[0]!.summary).toStartWith("Since this morning every CSV export");
    expect(d.timeline[2]!.summary).toBe(
      "Report ID is R-20931, last attempt at 10:55 UTC. Please make sure this is fixed before Thursday May 9.",
    );
  });

  test("decisions", () => {
    expect(d.decisions).toEqual([
      { text: "We decided to ship the fix today, and we will raise the export limit to 50,000 rows.", message_id: "m4" },
    ]);
  });

  test("open questions: only those nobody else has written after", () => {
    expect(d.open_questions).toEqual([
      { text: "Please try the export again after 2pm UTC and let me know whether it works.", message_id: "m4", asked_by: SELF },
      { text: "Did the board deck need the full year or just Q1?", message_id: "m4", asked_by: SELF },
    ]);
  });

  test("next steps: the last two messages' requests, with their due dates", () => {
    expect(d.next_steps).toEqual([
      { text: "Please make sure this is fixed before Thursday May 9.", message_id: "m3", due: "2024-05-09" },
      { text: "Please try the export again after 2pm UTC and let me know whether it works.", message_id: "m4", due: null },
    ]);
  });

  test("latest state: our message was last, so we wait for them", () => {
    expect(d.latest_state).toEqual({
      status: "open",
      last_message_at: "2024-05-07T08:00:00.000Z",
      last_from: SELF,
      awaiting: "them",
      summary: expect.stringContaining("We decided to ship the fix today"),
    });
  });

  test("deterministic", () => {
    expect(digest(thread(SUPPORT))).toEqual(d);
  });
});

describe("digest: turns and dates", () => {
  test("their message last: we owe the reply, and their questions are open", () => {
    const d = digest(thread(SUPPORT.slice(0, 3), { status: "archived" }));
    expect(d.latest_state.awaiting).toBe("us");
    expect(d.latest_state.status).toBe("archived");
    expect(d.latest_state.last_from).toBe(DANA);
    // m1's questions were answered by m2; m3 asks none.
    expect(d.open_questions).toEqual([]);
  });

  test("questions stay open across several messages from the same sender", () => {
    const d = digest(
      thread([
        msg("m1", "outbound", "2024-05-06T09:00:00Z", "Is the export working again?"),
        msg("m2", "inbound", "2024-05-06T10:00:00Z", "Which export do you mean?"),
        msg("m3", "inbound", "2024-05-06T10:05:00Z", "Also, can you resend the invoice?"),
      ]),
    );
    expect(d.open_questions).toEqual([
      { text: "Which export do you mean?", message_id: "m2", asked_by: DANA },
      { text: "Also, can you resend the invoice?", message_id: "m3", asked_by: DANA },
    ]);
  });

  test("an older request stays a next step while its due date is ahead, and drops once past", () => {
    const first = msg("m1", "inbound", "2024-05-01T09:00:00Z", "Please send the signed contract by May 20. Please call me tomorrow.");
    const chatter = [
      msg("m2", "outbound", "2024-05-02T09:00:00Z", "Noted, thanks."),
      msg("m3", "inbound", "2024-05-03T09:00:00Z", "Great."),
    ];
    expect(digest(thread([first, ...chatter])).next_steps).toEqual([
      { text: "Please send the signed contract by May 20.", message_id: "m1", due: "2024-05-20" },
    ]);
    const late = msg("m4", "outbound", "2024-05-25T09:00:00Z", "Following up on this.");
    expect(digest(thread([first, ...chatter, late])).next_steps).toEqual([]);
  });

  test("the same decision restated later is listed once, from where it was made", () => {
    const d = digest(
      thread([
        msg("m1", "inbound", "2024-05-01T09:00:00Z", "We agreed on the annual plan."),
        msg("m2", "outbound", "2024-05-02T09:00:00Z", "We agreed on the annual plan."),
      ]),
    );
    expect(d.decisions).toEqual([{ text: "We agreed on the annual plan.", message_id: "m1" }]);
  });
});

describe("digest: edge cases", () => {
  test("an empty thread", () => {
    expect(digest(thread([]))).toEqual({
      participants: [],
      timeline: [],
      decisions: [],
      open_questions: [],
      next_steps: [],
      latest_state: { status: "open", last_message_at: null, last_from: null, awaiting: null, summary: "(no messages)" },
    });
  });

  test("messages without text fall back to their subjects", () => {
    const d = digest(thread([msg("m1", "inbound", "2024-05-01T09:00:00Z", "")]));
    expect(d.timeline[0]!.summary).toBe("Export fails with error 500");
    expect(d.latest_state.summary).toBe("Export fails with error 500");
  });

  test("a long thread of large, hostile messages returns bounded lists", () => {
    const messages = Array.from({ length: 60 }, (_, i) =>
      msg(
        `m${i}`,
        i % 2 ? "outbound" : "inbound",
        new Date(Date.UTC(2024, 4, 1, 0, i)).toISOString(),
        Array.from({ length: 400 }, (_, k) => `Item ${i}.${k}: could you confirm by ${(k % 27) + 1} June? We agreed on ${k}.`).join("\n"),
      ),
    );
    const d = digest(thread(messages));
    expect(d.timeline).toHaveLength(60);
    expect(d.next_steps.length).toBeLessThanOrEqual(100);
    expect(d.decisions.length).toBeLessThanOrEqual(100);
    expect(d.open_questions.length).toBeLessThanOrEqual(100);
  });
});
