/**
 * Autopilot rules as pure functions: validation of what a user PUTs (every error class with its
 * path), the defaults, the decision for one message, and the JSON Schema agreeing with the
 * validator on a corpus of good and bad rules.
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import { decide, describeRuleSchema, type MessageFacts, normalizeRules, type Rule, type RuleAction } from "../src/autopilot/rules.ts";

const label = (name: string): RuleAction => ({ type: "label", label: name });
const base = { match: { from: ["*"] }, actions: [{ type: "archive" }] };

function rulesOf(input: unknown): Rule[] {
  const result = normalizeRules(input);
  if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
  return result.rules;
}

function errorsOf(input: unknown) {
  const result = normalizeRules(input);
  if (result.ok) throw new Error("expected errors");
  return result.errors;
}

/** The errors of a single rule `{ ...base, ...patch }`. */
const errorsOfRule = (patch: Record<string, unknown>) => errorsOf([{ ...base, ...patch }]);

const facts = (over: Partial<MessageFacts> = {}): MessageFacts => ({
  from: "alice@example.com",
  subject: "Hello",
  triageLabel: "fyi",
  riskLevel: "low",
  action: null,
  transport: "smtp",
  ...over,
});

/** A normalized rule with defaults, for decide(). */
const rule = (id: string, match: Rule["match"], actions: RuleAction[], over: Partial<Rule> = {}): Rule => ({ id, name: id, enabled: true, match, actions, stop: false, ...over });

describe("normalizeRules: defaults", () => {
  test("fills id, name, enabled, stop and the forward priority", () => {
    expect(rulesOf([{ match: { from: ["*"] }, actions: [{ type: "forward_to_runtime" }] }])).toEqual([
      { id: "rule-1", name: "rule-1", enabled: true, match: { from: ["*"] }, actions: [{ type: "forward_to_runtime", priority: "normal" }], stop: false },
    ]);
  });

  test("keeps what was given", () => {
    const given = { id: "vip", name: "VIP senders", enabled: false, stop: true, match: { from: ["@b.com"] }, actions: [{ type: "forward_to_runtime", priority: "high", note: "" }] };
    expect(rulesOf([given])).toEqual([given as Rule]);
  });

  test("an empty list is valid", () => {
    expect(rulesOf([])).toEqual([]);
  });

  test("ids follow positions and skip ids already taken", () => {
    const ids = rulesOf([base, { ...base, id: "rule-3" }, base, { ...base, id: "rule-1" }, base]).map((r) => r.id);
    expect(ids).toEqual(["rule-2", "rule-3", "rule-4", "rule-1", "rule-5"]);
  });

  test("an assigned id is not handed out twice", () => {
    // position 1 wants rule-1 (taken), moves to rule-2; position 2 then moves on to rule-3.
    expect(rulesOf([base, base, { ...base, id: "rule-1" }]).map((r) => r.id)).toEqual(["rule-2", "rule-3", "rule-1"]);
  });

  test("the name defaults to the final id", () => {
    expect(rulesOf([{ ...base, id: "x" }, base]).map((r) => r.name)).toEqual(["x", "rule-2"]);
  });

  test("labels are trimmed; conditions come back in a fixed order", () => {
    const [r] = rulesOf([{ match: { transport: ["smtp"], from: ["*"] }, actions: [{ type: "label", label: "  Clients " }] }]);
    expect(r?.actions).toEqual([label("Clients")]);
    expect(Object.keys(r?.match ?? {})).toEqual(["from", "transport"]);
  });

  test("normalizing twice changes nothing", () => {
    const once = rulesOf([base, { id: "b", match: { subject_contains: ["x"], risk_level: ["high"] }, actions: [label("L"), { type: "draft_reply", text: "hi" }] }]);
    expect(rulesOf(JSON.parse(JSON.stringify(once)))).toEqual(once);
  });

  test("the result does not share arrays with the input", () => {
    const input = [{ match: { from: ["@b.com"] }, actions: [{ type: "archive" }] }];
    const [r] = rulesOf(input);
    input[0]!.match.from.push("@c.com");
    input[0]!.actions.push({ type: "block" });
    expect(r?.match.from).toEqual(["@b.com"]);
    expect(r?.actions).toEqual([{ type: "archive" }]);
  });

  test("limits are inclusive", () => {
    const full = {
      id: "a".repeat(64),
      name: "n".repeat(200),
      match: { from: Array.from({ length: 50 }, (_, i) => `u${i}@b.com`), subject_contains: ["s".repeat(320)] },
      actions: [label("l".repeat(64)), { type: "draft_reply", text: "t".repeat(10_000) }, { type: "forward_to_runtime", note: "n".repeat(1000) }, ...Array(7).fill({ type: "archive" })],
    };
    expect(rulesOf([full])).toHaveLength(1);
    expect(rulesOf(Array(100).fill(base))).toHaveLength(100);
  });

  test("lengths count characters, not UTF-16 units", () => {
    expect(rulesOf([{ ...base, actions: [label("😀".repeat(64))] }])).toHaveLength(1);
    expect(errorsOfRule({ actions: [label("😀".repeat(65))] })).toEqual([{ path: "rules[0].actions[0].label", message: "must be at most 64 characters" }]);
  });
});

describe("normalizeRules: errors", () => {
  test.each([
    [null, "rules", "must be an array"],
    [{ rules: [] }, "rules", "must be an array"],
    [Array(101).fill(base), "rules", "must have at most 100 rules"],
    [[null], "rules[0]", "must be an object"],
    [[[base]], "rules[0]", "must be an object"],
    [["archive"], "rules[0]", "must be an object"],
  ])("the list: %#", (input, path, message) => {
    expect(errorsOf(input)).toEqual([{ path, message }]);
  });

  const idMessage = "must be 1 to 64 lowercase letters, digits, _ or -, starting with a letter or digit";
  test.each<[Record<string, unknown>, string, string]>([
    [{ colour: "red" }, "rules[0].colour", "is not a known field"],
    [{ "a b": 1 }, 'rules[0]["a b"]', "is not a known field"],
    [{ id: "Rule-1" }, "rules[0].id", idMessage],
    [{ id: "-a" }, "rules[0].id", idMessage],
    [{ id: "_a" }, "rules[0].id", idMessage],
    [{ id: "" }, "rules[0].id", idMessage],
    [{ id: "a".repeat(65) }, "rules[0].id", idMessage],
    [{ id: "a.b" }, "rules[0].id", idMessage],
    [{ id: 7 }, "rules[0].id", idMessage],
    [{ name: "" }, "rules[0].name", "must not be empty"],
    [{ name: "n".repeat(201) }, "rules[0].name", "must be at most 200 characters"],
    [{ name: 5 }, "rules[0].name", "must be a string"],
    [{ enabled: "yes" }, "rules[0].enabled", "must be a boolean"],
    [{ enabled: null }, "rules[0].enabled", "must be a boolean"],
    [{ stop: 1 }, "rules[0].stop", "must be a boolean"],
  ])("rule fields: %o", (patch, path, message) => {
    expect(errorsOfRule(patch)).toEqual([{ path, message }]);
  });

  test("a key written as __proto__ is an unknown field, not a prototype", () => {
    expect(errorsOf(JSON.parse('[{"match":{"from":["*"]},"actions":[{"type":"block"}],"__proto__":{"id":"x"}}]'))).toEqual([
      { path: "rules[0].__proto__", message: "is not a known field" },
    ]);
  });

  test("duplicate ids point at the first holder", () => {
    expect(errorsOf([{ ...base, id: "a" }, { ...base, id: "b" }, { ...base, id: "a" }, { ...base, id: "a" }])).toEqual([
      { path: "rules[2].id", message: "duplicates the id of rules[0]" },
      { path: "rules[3].id", message: "duplicates the id of rules[0]" },
    ]);
  });

  test.each<[unknown, string, string]>([
    [undefined, "rules[0].match", "is required"],
    [["from"], "rules[0].match", "must be an object"],
    [{}, "rules[0].match", "must have at least one condition"],
    [{ from: ["*"], sender: ["x"] }, "rules[0].match.sender", "is not a known field"],
    [{ from: "*" }, "rules[0].match.from", "must be an array"],
    [{ from: [] }, "rules[0].match.from", "must not be empty"],
    [{ from: Array(51).fill("*") }, "rules[0].match.from", "must have at most 50 entries"],
    [{ subject_contains: [3] }, "rules[0].match.subject_contains[0]", "must be a string"],
    [{ subject_contains: ["a", ""] }, "rules[0].match.subject_contains[1]", "must not be empty"],
    [{ action: ["x".repeat(321)] }, "rules[0].match.action[0]", "must be at most 320 characters"],
    [{ risk_level: ["low", "urgent"] }, "rules[0].match.risk_level[1]", "must be one of low, medium, high"],
    [{ risk_level: ["LOW"] }, "rules[0].match.risk_level[0]", "must be one of low, medium, high"],
    [{ triage_label: ["todo"] }, "rules[0].match.triage_label[0]", "must be one of action_required, reply_needed, fyi, newsletter, notification, spam"],
    [{ transport: ["http"] }, "rules[0].match.transport[0]", "must be one of smtp, agent-json"],
  ])("match: %o", (match, path, message) => {
    expect(errorsOfRule({ match })).toEqual([{ path, message }]);
  });

  test("a condition only given as an error still counts as given", () => {
    // One error, not two: the bad list is reported, "no condition" is not.
    expect(errorsOfRule({ match: { from: [] } })).toHaveLength(1);
  });

  const fromMessage = 'must be an address, "@domain", "*.domain", "@*.domain" or "*"';
  test.each(["b.com", "*@b.com", "@", "@*", "*.", "**", "a@", "@b.com.", "@b..com", "@-b.com", "@b-.com", "@*.*.b.com", "a b@c.com", "a@b.com ", " a@b.com", "<a@b.com>", "Ann <a@b.com>", "a@@b.com", "a@b_c.com", "*b.com", "@*b.com"])(
    "malformed from pattern %p",
    (pattern) => {
      expect(errorsOfRule({ match: { from: [pattern] } })).toEqual([{ path: "rules[0].match.from[0]", message: fromMessage }]);
    },
  );

  test.each(["*", "a@b.com", "A.Smith+tag@Mail.B-C.co.uk", "@b.com", "@B.COM", "*.b.com", "@*.b.com", "a@localhost", "*.com", "x@xn--bcher-kva.example"])("well-formed from pattern %p", (pattern) => {
    expect(rulesOf([{ ...base, match: { from: [pattern] } }])[0]?.match.from).toEqual([pattern]);
  });

  test.each<[unknown, string, string]>([
    [undefined, "rules[0].actions", "is required"],
    [{ type: "archive" }, "rules[0].actions", "must be an array"],
    [[], "rules[0].actions", "must not be empty"],
    [Array(11).fill({ type: "archive" }), "rules[0].actions", "must have at most 10 actions"],
    [["archive"], "rules[0].actions[0]", "must be an object"],
    [[{ label: "x" }], "rules[0].actions[0].type", "is required"],
    [[{ type: "delete" }], "rules[0].actions[0].type", "must be one of label, archive, draft_reply, forward_to_runtime, block"],
    [[{ type: 1 }], "rules[0].actions[0].type", "must be one of label, archive, draft_reply, forward_to_runtime, block"],
    [[{ type: "archive", label: "x" }], "rules[0].actions[0].label", "is not a known field"],
    [[{ type: "block", note: "x" }], "rules[0].actions[0].note", "is not a known field"],
    [[{ type: "label", name: "x", label: "x" }], "rules[0].actions[0].name", "is not a known field"],
    [[{ type: "label" }], "rules[0].actions[0].label", "is required"],
    [[{ type: "label", label: "" }], "rules[0].actions[0].label", "must not be empty"],
    [[{ type: "label", label: "l".repeat(65) }], "rules[0].actions[0].label", "must be at most 64 characters"],
    [[{ type: "label", label: "   " }], "rules[0].actions[0].label", "must contain a visible character and no control characters"],
    [[{ type: "label", label: "a\nb" }], "rules[0].actions[0].label", "must contain a visible character and no control characters"],
    [[{ type: "label", label: ["x"] }], "rules[0].actions[0].label", "must be a string"],
    [[{ type: "draft_reply" }], "rules[0].actions[0].text", "is required"],
    [[{ type: "draft_reply", text: "" }], "rules[0].actions[0].text", "must not be empty"],
    [[{ type: "draft_reply", text: "t".repeat(10_001) }], "rules[0].actions[0].text", "must be at most 10000 characters"],
    [[{ type: "forward_to_runtime", priority: "urgent" }], "rules[0].actions[0].priority", "must be one of normal, high"],
    [[{ type: "forward_to_runtime", priority: null }], "rules[0].actions[0].priority", "must be one of normal, high"],
    [[{ type: "forward_to_runtime", note: "n".repeat(1001) }], "rules[0].actions[0].note", "must be at most 1000 characters"],
    [[{ type: "forward_to_runtime", note: 1 }], "rules[0].actions[0].note", "must be a string"],
    [[{ type: "block" }, { type: "forward_to_runtime" }], "rules[0].actions[1]", "cannot be combined with block in the same rule"],
    [[{ type: "draft_reply", text: "hi" }, { type: "block" }], "rules[0].actions[0]", "cannot be combined with block in the same rule"],
  ])("actions: %o", (actions, path, message) => {
    expect(errorsOfRule({ actions })).toEqual([{ path, message }]);
  });

  test("block goes with label and archive", () => {
    expect(rulesOf([{ ...base, actions: [{ type: "block" }, label("blocked"), { type: "archive" }] }])).toHaveLength(1);
  });

  test("every error is reported, in rule order", () => {
    const errors = errorsOf([
      { ...base, id: "Bad", match: { risk_level: ["urgent"], from: ["nope"] } },
      base,
      { match: {}, actions: [{ type: "label" }, { type: "block" }, { type: "draft_reply", text: "x" }], extra: true },
    ]);
    expect(errors).toEqual([
      { path: "rules[0].id", message: idMessage },
      { path: "rules[0].match.from[0]", message: fromMessage },
      { path: "rules[0].match.risk_level[0]", message: "must be one of low, medium, high" },
      { path: "rules[2].extra", message: "is not a known field" },
      { path: "rules[2].match", message: "must have at least one condition" },
      { path: "rules[2].actions[0].label", message: "is required" },
      { path: "rules[2].actions[2]", message: "cannot be combined with block in the same rule" },
    ]);
  });
});

describe("decide: conditions", () => {
  const fromCases: [string, string, boolean][] = [
    ["@b.com", "x@b.com", true],
    ["@b.com", "X@B.Com", true],
    ["@B.COM", "x@b.com", true],
    ["@b.com", "x@sub.b.com", false],
    ["@b.com", "x@notb.com", false],
    ["@b.com", "Ann Smith <ann@b.com>", true],
    ["@b.com", "", false],
    ["@b.com", "b.com", false],
    ["*.b.com", "x@sub.b.com", true],
    ["*.b.com", "x@a.sub.b.com", true],
    ["*.b.com", "x@SUB.B.COM", true],
    ["*.b.com", "x@b.com", false],
    ["*.b.com", "x@evilb.com", false],
    ["*.b.com", "x@sub.b.com.evil.org", false],
    ["@*.b.com", "x@sub.b.com", true],
    ["@*.b.com", "x@b.com", false],
    ["a@b.com", "A@B.com", true],
    ["A@B.COM", "a@b.com", true],
    ["a@b.com", "aa@b.com", false],
    ["a@b.com", "a@sub.b.com", false],
    ["a@b.com", " a@b.com ", true],
    ["*", "x@anything.org", true],
    ["*", "", true],
    ["*", "not an address", true],
  ];
  test.each(fromCases)("from %p, sender %p: %p", (pattern, from, expected) => {
    expect(decide([rule("r", { from: [pattern] }, [{ type: "archive" }])], facts({ from })).matched_rules).toEqual(expected ? ["r"] : []);
  });

  const matched = (match: Rule["match"], over: Partial<MessageFacts> = {}) => decide([rule("r", match, [{ type: "archive" }])], facts(over)).matched_rules.length === 1;

  test("subject_contains is a case-insensitive substring", () => {
    expect(matched({ subject_contains: ["invoice"] }, { subject: "Your INVOICE #42" })).toBe(true);
    expect(matched({ subject_contains: ["Invoice #4"] }, { subject: "your invoice #42" })).toBe(true);
    expect(matched({ subject_contains: ["invoice"] }, { subject: "Receipt" })).toBe(false);
    expect(matched({ subject_contains: ["invoice"] }, { subject: "" })).toBe(false);
  });

  test("triage_label and risk_level compare with the assessment; null matches nothing", () => {
    expect(matched({ triage_label: ["newsletter"] }, { triageLabel: "newsletter" })).toBe(true);
    expect(matched({ triage_label: ["newsletter"] }, { triageLabel: "fyi" })).toBe(false);
    expect(matched({ triage_label: ["newsletter"] }, { triageLabel: null })).toBe(false);
    expect(matched({ risk_level: ["high"] }, { riskLevel: "high" })).toBe(true);
    expect(matched({ risk_level: ["high"] }, { riskLevel: "medium" })).toBe(false);
    expect(matched({ risk_level: ["high"] }, { riskLevel: null })).toBe(false);
  });

  test("a plain email never matches a rule that lists actions", () => {
    expect(matched({ action: ["send_message"] }, { action: null, transport: "smtp" })).toBe(false);
    expect(matched({ action: ["send_message"] }, { action: "send_message", transport: "agent-json" })).toBe(true);
    expect(matched({ action: ["send_message"] }, { action: "book_meeting", transport: "agent-json" })).toBe(false);
    // A rule without an action condition takes plain mail and protocol messages alike.
    expect(matched({ from: ["*"] }, { action: null })).toBe(true);
    expect(matched({ from: ["*"] }, { action: "send_message", transport: "agent-json" })).toBe(true);
  });

  test("transport", () => {
    expect(matched({ transport: ["agent-json"] }, { transport: "agent-json" })).toBe(true);
    expect(matched({ transport: ["agent-json"] }, { transport: "smtp" })).toBe(false);
  });

  test("conditions combine with AND, values within one with OR", () => {
    const m = { from: ["@a.com", "@b.com"], risk_level: ["medium", "high"] } satisfies Rule["match"];
    expect(matched(m, { from: "x@b.com", riskLevel: "high" })).toBe(true);
    expect(matched(m, { from: "x@a.com", riskLevel: "medium" })).toBe(true);
    expect(matched(m, { from: "x@b.com", riskLevel: "low" })).toBe(false);
    expect(matched(m, { from: "x@c.com", riskLevel: "high" })).toBe(false);
  });
});

describe("decide: evaluation", () => {
  const archive: RuleAction = { type: "archive" };
  const forward: RuleAction = { type: "forward_to_runtime", priority: "normal" };

  test("no rules, nothing planned", () => {
    expect(decide([], facts())).toEqual({ matched_rules: [], actions: [], blocked: false });
  });

  test("every matching rule contributes its actions, in order", () => {
    const rules = [rule("a", { from: ["*"] }, [label("one"), archive]), rule("miss", { from: ["@other.org"] }, [label("never")]), rule("b", { risk_level: ["low"] }, [forward])];
    expect(decide(rules, facts())).toEqual({
      matched_rules: ["a", "b"],
      actions: [
        { rule_id: "a", action: label("one") },
        { rule_id: "a", action: archive },
        { rule_id: "b", action: forward },
      ],
      blocked: false,
    });
  });

  test("disabled rules are skipped", () => {
    const rules = [rule("off", { from: ["*"] }, [label("x")], { enabled: false, stop: true }), rule("on", { from: ["*"] }, [archive])];
    expect(decide(rules, facts()).matched_rules).toEqual(["on"]);
  });

  test("a matching rule with stop ends evaluation; a stop rule that does not match does not", () => {
    const rules = [
      rule("skip", { from: ["@other.org"] }, [label("x")], { stop: true }),
      rule("halt", { from: ["*"] }, [label("y")], { stop: true }),
      rule("later", { from: ["*"] }, [archive]),
    ];
    const d = decide(rules, facts());
    expect(d.matched_rules).toEqual(["halt"]);
    expect(d.actions).toEqual([{ rule_id: "halt", action: label("y") }]);
  });

  test("block ends evaluation, keeps its rule's other actions and drops an earlier hand-off and reply", () => {
    const rules = [
      rule("first", { from: ["*"] }, [forward, { type: "draft_reply", text: "Thanks" }, label("seen")]),
      rule("bad", { from: ["@example.com"] }, [label("blocked"), { type: "block" }, archive]),
      rule("after", { from: ["*"] }, [label("never")]),
    ];
    expect(decide(rules, facts())).toEqual({
      matched_rules: ["first", "bad"],
      actions: [
        { rule_id: "first", action: label("seen") },
        { rule_id: "bad", action: label("blocked") },
        { rule_id: "bad", action: { type: "block" } },
        { rule_id: "bad", action: archive },
      ],
      blocked: true,
    });
  });

  test("duplicates are kept once, the first one wins", () => {
    const rules = [
      rule("a", { from: ["*"] }, [label("VIP"), archive, archive, { type: "draft_reply", text: "first" }]),
      rule("b", { from: ["*"] }, [label("vip "), label("other"), archive, { type: "draft_reply", text: "second" }, forward]),
      rule("c", { from: ["*"] }, [{ type: "forward_to_runtime", priority: "high" }]),
    ];
    expect(decide(rules, facts()).actions).toEqual([
      { rule_id: "a", action: label("VIP") },
      { rule_id: "a", action: archive },
      { rule_id: "a", action: { type: "draft_reply", text: "first" } },
      { rule_id: "b", action: label("other") },
      { rule_id: "b", action: forward },
    ]);
  });

  test("deterministic, and the plan does not share objects with the rules", () => {
    const rules = rulesOf([{ match: { subject_contains: ["hello"] }, actions: [{ type: "label", label: "greeting" }] }]);
    const d = decide(rules, facts());
    expect(decide(rules, facts())).toEqual(d);
    (d.actions[0]!.action as { label: string }).label = "changed";
    expect(rules[0]!.actions[0]).toEqual(label("greeting"));
  });

  test("odd facts never throw", () => {
    const rules = [rule("r", { from: ["@b.com", "a@b.com", "*.b.com"], subject_contains: ["x"], triage_label: ["spam"], risk_level: ["high"], action: ["a"] }, [archive])];
    const odd = [
      facts({ from: "", subject: "" }),
      facts({ from: "@", subject: "x" }),
      facts({ from: "<>", triageLabel: null, riskLevel: null }),
      { from: null, subject: undefined, triageLabel: undefined, riskLevel: 3, action: null, transport: "carrier-pigeon" } as unknown as MessageFacts,
    ];
    for (const f of odd) expect(decide(rules, f)).toEqual({ matched_rules: [], actions: [], blocked: false });
  });
});

describe("describeRuleSchema", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(describeRuleSchema());

  test("is a draft 2020-12 schema of one rule, fresh on every call", () => {
    const schema = describeRuleSchema() as Record<string, unknown>;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["match", "actions"]);
    expect(describeRuleSchema()).not.toBe(schema);
    expect(describeRuleSchema()).toEqual(schema);
  });

  // Single rules only: unique ids and the 100-rule limit are properties of the list.
  const corpus: unknown[] = [
    base,
    { id: "a_b-1", name: "N", enabled: false, stop: true, match: { from: ["@*.b.com", "x@y.z"], transport: ["agent-json"] }, actions: [label(" L ")] },
    { match: { triage_label: ["spam"], risk_level: ["high"], action: ["send_message"], subject_contains: ["😀"] }, actions: [{ type: "block" }, label("x"), { type: "archive" }] },
    { match: { from: ["*"] }, actions: [{ type: "forward_to_runtime", priority: "high", note: "" }, { type: "draft_reply", text: "ok" }] },
    { ...base, actions: [label("😀".repeat(64))] },
    {},
    { ...base, id: "Upper" },
    { ...base, id: "a".repeat(65) },
    { ...base, name: "" },
    { ...base, enabled: "true" },
    { ...base, extra: 1 },
    { ...base, match: {} },
    { ...base, match: { from: [] } },
    { ...base, match: { from: Array(51).fill("*") } },
    { ...base, match: { from: ["*@b.com"] } },
    { ...base, match: { from: ["@b..com"] } },
    { ...base, match: { subject_contains: [""] } },
    { ...base, match: { subject_contains: ["s".repeat(321)] } },
    { ...base, match: { risk_level: ["urgent"] } },
    { ...base, match: { transport: ["smtp"], nope: ["x"] } },
    { ...base, actions: [] },
    { ...base, actions: Array(11).fill({ type: "archive" }) },
    { ...base, actions: [{ type: "archive", text: "x" }] },
    { ...base, actions: [{ type: "label", label: "   " }] },
    { ...base, actions: [{ type: "label", label: "a\u0007" }] },
    { ...base, actions: [label("😀".repeat(65))] },
    { ...base, actions: [{ type: "draft_reply", text: "" }] },
    { ...base, actions: [{ type: "forward_to_runtime", priority: "low" }] },
    { ...base, actions: [{ type: "forward_to_runtime", note: "n".repeat(1001) }] },
    { ...base, actions: [{ type: "block" }, { type: "forward_to_runtime" }] },
    { ...base, actions: [{ type: "draft_reply", text: "x" }, { type: "block" }] },
    { ...base, actions: [{ type: "teleport" }] },
  ];
  test.each(corpus.map((r, i) => [i, r] as const))("agrees with normalizeRules on corpus entry %d", (_, r) => {
    expect(validate(r)).toBe(normalizeRules([r]).ok);
  });
});
