import { describe, expect, test } from "bun:test";
import { extract } from "../src/intel/local/extract.ts";
import { MAX_INPUT } from "../src/intel/local/spans.ts";
import type { IntelMessage } from "../src/intel/types.ts";

// Wednesday 4 March 2026, mid-morning in the US.
const SENT = new Date("2026-03-04T15:00:00Z");

function msg(text: string, over: Partial<IntelMessage> = {}): IntelMessage {
  return {
    id: "m1",
    direction: "inbound",
    from: "pat.jones@example.com",
    fromName: "Pat Jones",
    to: ["me@example.org"],
    cc: [],
    subject: "",
    text,
    date: SENT,
    ...over,
  };
}

const run = (text: string, over: Partial<IntelMessage> = {}) => extract(msg(text, over));
const days = (text: string, over: Partial<IntelMessage> = {}) => run(text, over).dates.map((d) => d.date);
const money = (text: string) => run(text).amounts.map((a) => `${a.currency} ${a.value}`);
const phones = (text: string, over: Partial<IntelMessage> = {}) => run(text, over).phones.map((p) => p.e164);

describe("dates", () => {
  test("explicit dates in several formats", () => {
    expect(days("Signed on 3 March 2026, renewed 2026-04-01 and due 04/15/2026.")).toEqual([
      "2026-03-03",
      "2026-04-01",
      "2026-04-15",
    ]);
  });

  test("relative days resolve against the send date", () => {
    expect(days("I'll call tomorrow; we spoke yesterday and again today.")).toEqual([
      "2026-03-05",
      "2026-03-03",
      "2026-03-04",
    ]);
  });

  test("a weekday is the next one strictly after the send day", () => {
    expect(days("Can we meet Friday?")).toEqual(["2026-03-06"]);
    // Sent on a Wednesday, "Wednesday" is a week later.
    expect(days("How about Wednesday instead?")).toEqual(["2026-03-11"]);
    expect(days("As I said last Monday")).toEqual(["2026-03-02"]);
  });

  test("a date without a year is the next occurrence", () => {
    expect(days("Back on Jan 5.")).toEqual(["2027-01-05"]);
    expect(days("Dinner on the 25th at 2.")).toEqual(["2026-03-25"]);
    expect(days("Could we move it to Mar 16 or 17?")).toEqual(["2026-03-16", "2026-03-17"]);
  });

  test("a range gives both ends and nothing between", () => {
    expect(days("Out of office Mar 10 – Mar 14.")).toEqual(["2026-03-10", "2026-03-14"]);
  });

  test("hard-wrapped text is read as one sentence", () => {
    expect(days("Please pay the balance by Friday\n24 April 2026.")).toEqual(["2026-04-24"]);
  });

  test("versions, times alone, durations and vague periods are not dates", () => {
    expect(days("Upgrade from 2.10.3 to v3.1.0 took 30 minutes.")).toEqual([]);
    expect(days("The call is at 3pm, or 14:00 if that's easier.")).toEqual([]);
    expect(days("Reply within 30 days; shipping takes 3-5 working days.")).toEqual([]);
    expect(days("Let's plan for next week, Q3, or sometime in March 2026.")).toEqual([]);
    expect(days("Since 2019 we have grown; © 2026 Example Corp.")).toEqual([]);
    expect(days("We're here right now.")).toEqual([]);
  });

  test("opening hours and named days are not dates", () => {
    expect(days("Support: Mon–Fri 9:00–17:00, Sat 10:00–14:00.")).toEqual([]);
    expect(days("Call us Monday to Friday.")).toEqual([]);
    expect(days("BLACK FRIDAY deals are here")).toEqual([]);
  });

  test("a fraction is not a date, an unambiguous day/month is", () => {
    expect(days("About 3/4 of the team agreed; it runs 24/7.")).toEqual([]);
    expect(days("Submit it by 3/6.")).toEqual(["2026-03-06"]);
  });

  test("dates inside URLs and identifiers are not dates", () => {
    expect(days("Status: https://status.example.com/incidents/2026-08-12-api and SKU TF-2026-03-NVY.")).toEqual([]);
  });

  test("day-first when the message is European; dotted dates always day-first", () => {
    expect(days("Completed on 10/12/2026, total £120.", { from: "a@shop.co.uk" })).toEqual(["2026-12-10"]);
    expect(days("Completed on 10/12/2026.")).toEqual(["2026-10-12"]);
    expect(days("Workshop on 03.04.2026.")).toEqual(["2026-04-03"]);
  });

  test("German and French dates", () => {
    expect(days("Bitte zahlen Sie bis zum 20.03.2026. Die Führung ist am Sonntag, 7. Juni, wir freuen uns.")).toEqual([
      "2026-03-20",
      "2026-06-07",
    ]);
    expect(days("Merci de confirmer votre présence avant le 22/05 pour la réunion de jeudi 28 mai.")).toEqual([
      "2026-05-22",
      "2026-05-28",
    ]);
  });

  test("kind: deadline, event or date; time when given", () => {
    const found = run("The invoice is due March 20. Meeting on March 10 at 2:30pm. We met on March 2.").dates;
    expect(found.map((d) => [d.date, d.kind, d.time])).toEqual([
      ["2026-03-20", "deadline", null],
      ["2026-03-10", "event", "14:30"],
      ["2026-03-02", "date", null],
    ]);
    expect(run("Please send it by Friday.").dates[0]?.kind).toBe("deadline");
    expect(run("No later than April 1, please.").dates[0]?.kind).toBe("deadline");
  });

  test("dates in the subject count", () => {
    expect(days("", { subject: "Invoice due March 31, 2026" })).toEqual(["2026-03-31"]);
  });

  test("one entry per day, the strongest kind kept", () => {
    const found = run("See you Friday. The report is due Friday, March 6.").dates;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ date: "2026-03-06", kind: "deadline" });
  });
});

describe("amounts", () => {
  test("symbols and codes on either side, any separator style", () => {
    expect(money("$1,234.56, USD 99, 1.234,56 €, €12, £9.99, ¥5000, 12.50 EUR, CHF 1'800.00, EUR 58,40")).toEqual([
      "USD 1234.56",
      "USD 99",
      "EUR 1234.56",
      "EUR 12",
      "GBP 9.99",
      "JPY 5000",
      "EUR 12.5",
      "CHF 1800",
      "EUR 58.4",
    ]);
  });

  test("dollar variants", () => {
    expect(money("CA$20, A$95/hr, US$7, NZ$12 and HK$100")).toEqual(["CAD 20", "AUD 95", "USD 7", "NZD 12", "HKD 100"]);
  });

  test("scales", () => {
    expect(money("$5k seed, then $2.5M, then $1.2 million; €85k–€105k")).toEqual([
      "USD 5000",
      "USD 2500000",
      "USD 1200000",
      "EUR 85000",
      "EUR 105000",
    ]);
  });

  test("rupees", () => {
    expect(money("Rs. 500 or ₹1,200")).toEqual(["INR 500", "INR 1200"]);
  });

  test("percentages, quantities and bare numbers are not money", () => {
    expect(money("Save 15% on 3 items, 1,200 units, 500 GB, version 2.3")).toEqual([]);
  });

  test("cells run together by an HTML table", () => {
    expect(money("Qty: 1$34.99")).toEqual(["USD 34.99"]);
  });

  test("each value and currency once", () => {
    expect(money("Total $20. You paid $20.")).toEqual(["USD 20"]);
  });
});

describe("urls", () => {
  const urls = (text: string) => run(text).urls.map((u) => u.url);

  test("trailing punctuation and unbalanced brackets are dropped, query strings kept", () => {
    expect(urls("See https://example.com/a?b=1&c=2. Or (https://x.example/p).")).toEqual([
      "https://example.com/a?b=1&c=2",
      "https://x.example/p",
    ]);
  });

  test("balanced brackets and fragments are part of the link", () => {
    expect(urls("Docs: https://en.example.org/wiki/Foo_(bar)#History!")).toEqual([
      "https://en.example.org/wiki/Foo_(bar)#History",
    ]);
  });

  test("www. links as written, domain lowercase", () => {
    const found = run("Visit www.Example.com/shop, thanks").urls;
    expect(found).toEqual([{ url: "www.Example.com/shop", domain: "www.example.com" }]);
  });

  test("bare domains and lone schemes are not links", () => {
    expect(urls("subscribed at news.example.com; see http:// for details")).toEqual([]);
  });
});

describe("emails", () => {
  const emails = (text: string) => run(text).emails.map((e) => e.address);

  test("lowercase, deduplicated, punctuation around them dropped", () => {
    expect(emails("Write to Jo.Smith@Example.COM, or (jo.smith@example.com). Also <ops@example.org>.")).toEqual([
      "jo.smith@example.com",
      "ops@example.org",
    ]);
  });

  test("addresses inside a URL are the URL's", () => {
    expect(emails("https://example.com/u?email=jo@example.com and https://x.example/a%40b.com")).toEqual([]);
  });

  test("no domain, no address", () => {
    expect(emails("ping @channel or user@localhost")).toEqual([]);
  });
});

describe("phones", () => {
  test("US formats, extensions dropped", () => {
    expect(phones("Call (415) 555-0123, 1-888-555-0142 or 503.555.0124 ext. 12.")).toEqual([
      "+14155550123",
      "+18885550142",
      "+15035550124",
    ]);
  });

  test("international numbers keep their country; national ones use the sender's", () => {
    expect(phones("Ring +44 20 7946 0958 or +49 30 5550 1234.")).toEqual(["+442079460958", "+493055501234"]);
    expect(phones("Call our team on 020 7946 0321.", { from: "a@shop.co.uk" })).toEqual(["+442079460321"]);
  });

  test("dates, amounts, order numbers, IBANs and tracking numbers are not phones", () => {
    expect(phones("On 2026-03-15 we paid $1,234,567.89 for order 112-5550123-4412331.")).toEqual([]);
    expect(phones("IBAN DE89 3704 0044 0532 0130 00, account number 41234567")).toEqual([]);
    expect(phones("UPS tracking: 1Z999AA10123456784")).toEqual([]);
    expect(phones("Ref SH-260715-0093 is open.")).toEqual([]);
  });

  test("an unformatted digit run needs a word like 'call' before it", () => {
    expect(phones("Order 4155550123 shipped.")).toEqual([]);
    expect(phones("Call 4155550123 today.")).toEqual(["+14155550123"]);
  });
});

describe("tracking numbers", () => {
  const tracking = (text: string) => run(text).tracking_numbers;

  test("carrier formats near shipping words", () => {
    expect(tracking("Your UPS package: 1Z999AA10123456784")).toEqual([{ value: "1Z999AA10123456784", carrier: "UPS" }]);
    expect(tracking("USPS tracking: 9400 1118 9922 3344 5566 77")).toEqual([
      { value: "9400111899223344556677", carrier: "USPS" },
    ]);
    expect(tracking("FedEx tracking: 7963 1220 4557")).toEqual([{ value: "796312204557", carrier: "FedEx" }]);
    expect(tracking("Tracking number: RM 4052 8817 9 GB")).toEqual([{ value: "RM405288179GB", carrier: "Royal Mail" }]);
    expect(tracking("Your shipment 4812739050 is held at customs")).toEqual([{ value: "4812739050", carrier: "DHL" }]);
  });

  test("digit runs without shipping context are not tracking numbers", () => {
    expect(tracking("Account 123456789012 is overdue.")).toEqual([]);
    expect(tracking("Order number 123456789012 has shipped, tracking to follow.")).toEqual([]);
  });

  test("a tracking number inside a link is the link's", () => {
    expect(tracking("Track it: https://ups.example/track?n=1Z999AA10123456784")).toEqual([]);
  });
});

describe("invoice numbers", () => {
  const invoices = (text: string) => run(text).invoice_numbers.map((i) => i.value);

  test("the usual labels", () => {
    expect(invoices("Invoice #INV-2024-001; Invoice number: 48213; Invoice No. A-17; Inv#7788")).toEqual([
      "INV-2024-001",
      "48213",
      "A-17",
      "7788",
    ]);
    expect(invoices("Bill number: NH-26-0112-88341")).toEqual(["NH-26-0112-88341"]);
    expect(invoices("Rechnung Nr. RE-2026-0117")).toEqual(["RE-2026-0117"]);
    expect(invoices("Invoice numbers from the receipts: SP-1 and SP-2")).toEqual(["SP-1", "SP-2"]);
  });

  test("in the subject too", () => {
    expect(run("", { subject: "Invoice 2026-0089 / Project X" }).invoice_numbers).toEqual([{ value: "2026-0089" }]);
  });

  test("receipts, orders, years and plain words are not invoice numbers", () => {
    expect(invoices("Receipt #2214-9087 for order 10482. Your invoice is attached. The 2025 invoice run.")).toEqual([]);
  });
});

describe("people, organisations and addresses", () => {
  test("the sender, a greeting and a sign-off", () => {
    const x = run("Hi Bob,\n\nSee you soon.\n\nThanks,\nPat", { to: ["bob.smith@example.org"] });
    expect(x.people).toEqual([
      { name: "Pat Jones", email: "pat.jones@example.com" },
      { name: "Bob", email: "bob.smith@example.org" },
    ]);
  });

  test("a service's display name is not a person", () => {
    expect(run("Your bill is ready.", { from: "billing@hydro.example", fromName: "Northern Hydro" }).people).toEqual([]);
  });

  test("Name <address> in the text", () => {
    expect(run("Please loop in Jane Doe <Jane.Doe@example.net>.").people).toContainEqual({
      name: "Jane Doe",
      email: "jane.doe@example.net",
    });
  });

  test("organisations by their legal or institutional word", () => {
    const names = run("Acme Cloud, Inc. banks with First National Bank; Müller Webdesign GmbH and the University of Toronto.")
      .organizations.map((o) => o.name);
    expect(names).toEqual(["Acme Cloud, Inc.", "First National Bank", "Müller Webdesign GmbH", "University of Toronto"]);
  });

  test("a city and state are not a company", () => {
    expect(run("Ships from: Reno, NV 89502").organizations).toEqual([]);
  });

  test("postal addresses with the city line", () => {
    expect(run("Send it to:\n123 Main Street\nSpringfield, IL 62704\n").addresses).toEqual([
      { text: "123 Main Street, Springfield, IL 62704" },
    ]);
    expect(run("Collection: 116 Upper Street, London N1 1AA").addresses).toEqual([
      { text: "116 Upper Street, London N1 1AA" },
    ]);
  });
});

describe("cues", () => {
  test("questions and action items come from the body", () => {
    const x = run("Could you review the draft by Friday?");
    expect(x.questions.length).toBeGreaterThan(0);
    expect(x.action_items.length).toBeGreaterThan(0);
  });
});

describe("robustness", () => {
  test("every field is present on empty input", () => {
    expect(run("")).toEqual({
      dates: [],
      amounts: [],
      people: [{ name: "Pat Jones", email: "pat.jones@example.com" }],
      organizations: [],
      addresses: [],
      phones: [],
      urls: [],
      emails: [],
      tracking_numbers: [],
      invoice_numbers: [],
      action_items: [],
      questions: [],
    });
  });

  test("an invalid send date does not throw", () => {
    expect(() => run("See you tomorrow", { date: new Date(Number.NaN) })).not.toThrow();
  });

  // How long these take is a figure of bench/extract-budget.ts; the test holds the bound on input.
  test("hostile input yields a result and is read no further than MAX_INPUT", () => {
    const hostile = ["1/".repeat(100_000), "a@".repeat(100_000), "1 ".repeat(100_000), "Mon-Fri ".repeat(25_000), "$1".repeat(100_000)];
    for (const text of hostile) {
      expect(text.length).toBeGreaterThanOrEqual(MAX_INPUT);
      expect(run(`${text}${text}`)).toEqual(run(text));
    }
  }, 60_000);
});
