import { describe, expect, test } from "bun:test";
import { summarize } from "../src/intel/local/summary.ts";
import type { IntelMessage, Summary } from "../src/intel/types.ts";

const message = (subject: string, text: string): IntelMessage => ({
  id: "m1",
  direction: "inbound",
  from: "sender@example.com",
  fromName: "Sender",
  to: ["agent@mailroom.example"],
  cc: [],
  subject,
  text,
  date: new Date("2024-03-04T10:00:00Z"),
});

/** What every summary must respect, whatever the input. */
function expectWellFormed(s: Summary) {
  expect(s.summary.length).toBeGreaterThan(0);
  expect(s.summary.length).toBeLessThanOrEqual(400);
  expect(s.key_points.length).toBeLessThanOrEqual(5);
  for (const p of s.key_points) expect(p.length).toBeLessThanOrEqual(160);
}

const INVOICE = `Hello,

Thank you for your business. Your invoice INV-1042 for March hosting is now available.

Amount due: $1,240.50
Due date: March 15, 2024

Please pay by bank transfer or card using the link below.
https://billing.acme.example/pay/INV-1042

If you have any questions, please contact billing@acme.example.

Best regards,
Acme Billing Team`;

const MEETING = `Hi Sarah,

I hope you're well. I'd like to set up a meeting next week to go over the Q2 roadmap and the
hiring plan for the platform team. Would Tuesday at 2pm or Wednesday at 10am work for you?
It should take about an hour. Could you also bring the latest budget numbers?

Thanks,
Tom`;

const NEWSLETTER = `View in browser

This week's top stories

Ready to save? Our summer sale is here with 20% off every plan. Upgrade your workspace today and
unlock advanced analytics, priority support and unlimited projects.

New feature: shared inboxes. Teams can now triage customer email together, assign conversations
and leave internal notes without forwarding anything.

You are receiving this email because you signed up at acme.example.
Unsubscribe | Manage preferences
© 2024 Acme Inc. All rights reserved.`;

describe("summarize: realistic mail", () => {
  test("invoice: the amount, the due date and the request to pay", () => {
    const s = summarize(message("Your invoice INV-1042 from Acme Hosting", INVOICE));
    expectWellFormed(s);
    expect(s.summary).toBe(
      "Your invoice INV-1042 for March hosting is now available. Amount due: $1,240.50. Due date: March 15, 2024.",
    );
    expect(s.key_points).toEqual([
      "Your invoice INV-1042 for March hosting is now available.",
      "Amount due: $1,240.50",
      "Due date: March 15, 2024",
      "Please pay by bank transfer or card using the link below.",
    ]);
  });

  test("meeting request: the proposal and the asks, without greeting or sign-off", () => {
    const s = summarize(message("Meeting next week?", MEETING));
    expectWellFormed(s);
    expect(s.summary).toContain("Would Tuesday at 2pm or Wednesday at 10am work for you?");
    expect(s.summary).toContain("Could you also bring the latest budget numbers?");
    expect(s.summary).not.toContain("Hi Sarah");
    expect(s.summary).not.toContain("Thanks");
    expect(s.summary).not.toContain("Tom");
    expect(s.key_points).toContain("Could you also bring the latest budget numbers?");
  });

  test("newsletter: the content, never the footer", () => {
    const s = summarize(message("Weekly digest", NEWSLETTER));
    expectWellFormed(s);
    expect(s.summary).toContain("20% off");
    for (const junk of ["View in browser", "Unsubscribe", "receiving this", "rights reserved"]) {
      expect(s.summary).not.toContain(junk);
      for (const p of s.key_points) expect(p).not.toContain(junk);
    }
  });

  test("a short reply is its own summary", () => {
    expect(summarize(message("Re: Friday", "Sounds good, see you then.\n\nJane"))).toEqual({
      summary: "Sounds good, see you then.",
      key_points: ["Sounds good, see you then."],
    });
  });

  test("sentences kept in the order written, and key points without repeats", () => {
    const s = summarize(
      message(
        "Server migration",
        "The server migration starts on Saturday. The server migration starts on Saturday. Please back up your files before the migration. Downtime should be short.",
      ),
    );
    expect(s.key_points.filter((p) => p.startsWith("The server migration starts"))).toHaveLength(1);
    const migration = s.summary.indexOf("The server migration");
    const backup = s.summary.indexOf("Please back up");
    expect(migration).toBeGreaterThanOrEqual(0);
    expect(backup).toBeGreaterThan(migration);
  });

  test("one very long sentence is cut to fit", () => {
    const s = summarize(message("Log", `The job failed because ${"the upstream service timed out and ".repeat(14)}retried.`));
    expectWellFormed(s);
    expect(s.summary.endsWith("…")).toBe(true);
  });
});

describe("summarize: little or nothing to say", () => {
  test("empty text falls back to the subject, without reply prefixes", () => {
    expect(summarize(message("Re: Fwd: Parking permit", ""))).toEqual({ summary: "Parking permit", key_points: [] });
  });

  test("neither text nor subject", () => {
    expect(summarize(message("", ""))).toEqual({ summary: "(no text)", key_points: [] });
    expect(summarize(message("  ", " \n\n "))).toEqual({ summary: "(no text)", key_points: [] });
  });

  test("only a link, only a greeting and a sign-off, or a one-word reply", () => {
    expect(summarize(message("Link for you", "https://example.com/some/page?x=1")).summary).toBe("Link for you");
    expect(summarize(message("Hello", "Hi Bob,\n\nThanks,\nJane")).summary).toBe("Hello");
    expect(summarize(message("Re: Contract", "Ok")).summary).toBe("Contract");
    expect(summarize(message("Re:", "")).summary).toBe("Re:");
  });

  test("only quoted history", () => {
    expect(summarize(message("Re: Plans", "> Are we still on for Friday?\n> Bob")).summary).toBe("Plans");
  });
});

describe("summarize: determinism and untrusted input", () => {
  test("same message, same summary, whatever ran in between", () => {
    const first = summarize(message("Meeting next week?", MEETING));
    summarize(message("Weekly digest", NEWSLETTER));
    summarize(message("Invoice", INVOICE));
    expect(summarize(message("Meeting next week?", MEETING))).toEqual(first);
  });

  test("1 MB of text returns a bounded summary", () => {
    const text = "Please review the quarterly report by Friday. We agreed on vendor B. ".repeat(15_000);
    expect(text.length).toBeGreaterThan(1_000_000);
    expectWellFormed(summarize(message("Quarterly report", text)));
  });

  const hostile: Record<string, string> = {
    "no spaces": "x".repeat(1_000_000),
    "dots and spaces": ". ".repeat(500_000),
    "abbreviations": "e.g. Mr. Inc. ".repeat(70_000),
    "amount-like digits": "1,".repeat(500_000),
    "nested brackets": "(".repeat(500_000) + ")".repeat(500_000),
    "bullets": "- send it\n".repeat(100_000),
    "address-like": "a@".repeat(500_000),
    "many links": "https://a.example/b?c=d ".repeat(40_000),
    "CJK": "请确认。".repeat(200_000),
  };
  for (const [name, text] of Object.entries(hostile)) {
    test(`hostile input: ${name}`, () => {
      expectWellFormed(summarize(message("Subject", text)));
    });
  }
});
