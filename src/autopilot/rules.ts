/**
 * Autopilot rules: what a mailbox owner asks to happen to each processed inbound message.
 * Pure domain code, no I/O: `normalizeRules` checks the rules a user PUTs, `decide` plans the
 * actions for one message, `describeRuleSchema` documents a rule for the OpenAPI document.
 * Applying a decision (in `enforce` mode) or only recording it (in `observe` mode) is the caller's.
 */

export const AUTOPILOT_MODES = ["observe", "enforce"] as const;
const RISK_LEVELS = ["low", "medium", "high"] as const;
const TRIAGE_LABELS = ["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"] as const;
const TRANSPORTS = ["smtp", "agent-json"] as const;
const PRIORITIES = ["normal", "high"] as const;

export type AutopilotMode = (typeof AUTOPILOT_MODES)[number];
export type RiskLevel = (typeof RISK_LEVELS)[number];
export type TriageLabel = (typeof TRIAGE_LABELS)[number];

/** Every given condition must hold (AND); within one condition any listed value matches (OR). */
export interface RuleMatch {
  /** "a@b.com", "@b.com" (that domain only), "*.b.com" or "@*.b.com" (its subdomains only), "*" (anyone). */
  from?: string[];
  subject_contains?: string[];
  triage_label?: TriageLabel[];
  risk_level?: RiskLevel[];
  /** Protocol action names; a plain email has no action, so it never matches a rule listing some. */
  action?: string[];
  transport?: (typeof TRANSPORTS)[number][];
}

export type RuleAction =
  | { type: "label"; label: string }
  | { type: "archive" }
  | { type: "draft_reply"; text: string }
  | { type: "forward_to_runtime"; priority?: "normal" | "high"; note?: string }
  | { type: "block" };

export interface Rule { id: string; name: string; enabled: boolean; match: RuleMatch; actions: RuleAction[]; stop: boolean }
export interface MessageFacts { from: string; subject: string; triageLabel: string | null; riskLevel: string | null; action: string | null; transport: "smtp" | "agent-json" }
export interface PlannedAction { rule_id: string; action: RuleAction }
export interface Decision { matched_rules: string[]; actions: PlannedAction[]; blocked: boolean }
export interface RuleError { path: string; message: string }

export const RULE_LIMITS = { rules: 100, values: 50, valueLength: 320, name: 200, actions: 10, label: 64, text: 10_000, note: 1_000 } as const;

// Patterns are kept as flagless ECMA-262 source so the JSON Schema carries the very same ones.
const ID_PATTERN = "^[a-z0-9][a-z0-9_-]{0,63}$";
const DNS_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const DOMAIN = `(?:${DNS_LABEL}\\.)*${DNS_LABEL}`;
// No "*" in a local part: "*@b.com" is a mistake for "@b.com", not an address anyone has.
const LOCAL_PART = "[^\\s\\x00-\\x1f\\x7f@<>*]+";
const FROM_PATTERN = `^(?:\\*|@(?:\\*\\.)?${DOMAIN}|\\*\\.${DOMAIN}|${LOCAL_PART}@${DOMAIN})$`;
// The label store refuses control characters and blank names (src/domain/labels.ts).
const CONTROL = "\\x00-\\x1f\\x7f-\\x9f";
const LABEL_PATTERN = `^[^${CONTROL}]*[^\\s${CONTROL}][^${CONTROL}]*$`;
const ID_RE = new RegExp(ID_PATTERN);
const FROM_RE = new RegExp(FROM_PATTERN);
const LABEL_RE = new RegExp(LABEL_PATTERN);
const FROM_MESSAGE = 'must be an address, "@domain", "*.domain", "@*.domain" or "*"';

const RULE_FIELDS = ["id", "name", "enabled", "match", "actions", "stop"];
const ACTION_FIELDS: Record<RuleAction["type"], string[]> = { label: ["label"], archive: [], draft_reply: ["text"], forward_to_runtime: ["priority", "note"], block: [] };
const ACTION_TYPES = Object.keys(ACTION_FIELDS) as RuleAction["type"][];
const isActionType = (v: unknown): v is RuleAction["type"] => ACTION_TYPES.includes(v as RuleAction["type"]);
// Block means the message reaches neither the agent runtime nor a reply.
const BLOCKED_OUT: RuleAction["type"][] = ["forward_to_runtime", "draft_reply"];

const mustBeOneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;
const inSet = (values: readonly string[]) => (s: string) => (values.includes(s) ? null : mustBeOneOf(values));
/** Per condition, the check of one value; the key order is the order conditions are written back in. */
const CONDITIONS: Record<keyof RuleMatch, (s: string) => string | null> = {
  from: (s) => (FROM_RE.test(s) ? null : FROM_MESSAGE),
  subject_contains: () => null,
  triage_label: inSet(TRIAGE_LABELS),
  risk_level: inSet(RISK_LEVELS),
  action: () => null,
  transport: inSet(TRANSPORTS),
};
const CONDITION_KEYS = Object.keys(CONDITIONS) as (keyof RuleMatch)[];

type Fail = (path: string, message: string) => void;
type Draft = Omit<Rule, "id" | "name"> & { id?: string; name?: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
// Own properties only: a key inherited from Object.prototype was never written by the user.
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
// Code points, as JSON Schema's minLength/maxLength count them.
const length = (s: string) => [...s].length;
const child = (path: string, key: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

function unknownFields(o: Record<string, unknown>, known: string[], path: string, fail: Fail): void {
  for (const key of Object.keys(o)) if (!known.includes(key)) fail(child(path, key), "is not a known field");
}

function text(v: unknown, path: string, fail: Fail, max: number, min = 1): string | undefined {
  if (typeof v !== "string") return void fail(path, "must be a string");
  const n = length(v);
  if (n < min) return void fail(path, "must not be empty");
  if (n > max) return void fail(path, `must be at most ${max} characters`);
  return v;
}

function flag(v: unknown, path: string, fail: Fail, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") fail(path, "must be a boolean");
  return v === true;
}

/** The entries of a required, non-empty, bounded list; [] once it is reported. */
function list(v: unknown, path: string, fail: Fail, max: number, noun: string): unknown[] {
  if (v === undefined) fail(path, "is required");
  else if (!Array.isArray(v)) fail(path, "must be an array");
  else if (v.length === 0) fail(path, "must not be empty");
  // Entries of an overlong list go unchecked, which keeps the error list within the limits.
  else if (v.length > max) fail(path, `must have at most ${max} ${noun}`);
  else return v;
  return [];
}

function condition(v: unknown, path: string, fail: Fail, check: (s: string) => string | null): string[] {
  const values: string[] = [];
  list(v, path, fail, RULE_LIMITS.values, "entries").forEach((item, i) => {
    const s = text(item, `${path}[${i}]`, fail, RULE_LIMITS.valueLength);
    const problem = s === undefined ? null : check(s);
    if (problem) fail(`${path}[${i}]`, problem);
    else if (s !== undefined) values.push(s);
  });
  return values;
}

function matchOf(v: unknown, path: string, fail: Fail): RuleMatch {
  if (!isObject(v)) {
    fail(path, v === undefined ? "is required" : "must be an object");
    return {};
  }
  unknownFields(v, CONDITION_KEYS, path, fail);
  const match: Record<string, string[]> = {};
  for (const key of CONDITION_KEYS) {
    const raw = own(v, key);
    if (raw !== undefined) match[key] = condition(raw, `${path}.${key}`, fail, CONDITIONS[key]);
  }
  if (Object.keys(match).length === 0) fail(path, "must have at least one condition");
  // Every value passed its condition's check above, enums included.
  return match as RuleMatch;
}

function actionOf(v: unknown, path: string, fail: Fail): RuleAction | undefined {
  if (!isObject(v)) return void fail(path, "must be an object");
  const type = own(v, "type");
  if (type === undefined) return void fail(`${path}.type`, "is required");
  if (!isActionType(type)) return void fail(`${path}.type`, mustBeOneOf(ACTION_TYPES));
  unknownFields(v, ["type", ...ACTION_FIELDS[type]], path, fail);
  const required = (key: string, check: (value: unknown, at: string) => string | undefined) => {
    const value = own(v, key);
    return value === undefined ? void fail(`${path}.${key}`, "is required") : check(value, `${path}.${key}`);
  };
  switch (type) {
    case "label": {
      const label = required("label", (value, at) => {
        const s = text(value, at, fail, RULE_LIMITS.label);
        if (s !== undefined && !LABEL_RE.test(s)) return void fail(at, "must contain a visible character and no control characters");
        return s?.trim();
      });
      return label === undefined ? undefined : { type, label };
    }
    case "draft_reply": {
      const body = required("text", (value, at) => text(value, at, fail, RULE_LIMITS.text));
      return body === undefined ? undefined : { type, text: body };
    }
    case "forward_to_runtime": {
      const priority = own(v, "priority");
      if (priority !== undefined && !PRIORITIES.includes(priority as never)) fail(`${path}.priority`, mustBeOneOf(PRIORITIES));
      const given = own(v, "note");
      const note = given === undefined ? undefined : text(given, `${path}.note`, fail, RULE_LIMITS.note, 0);
      return { type, priority: (priority ?? "normal") as "normal" | "high", ...(note === undefined ? {} : { note }) };
    }
    case "archive":
    case "block":
      return { type };
  }
}

function actionsOf(v: unknown, path: string, fail: Fail): RuleAction[] {
  const actions = list(v, path, fail, RULE_LIMITS.actions, "actions").map((a, i) => actionOf(a, `${path}[${i}]`, fail));
  if (actions.some((a) => a?.type === "block")) {
    actions.forEach((a, i) => {
      if (a && BLOCKED_OUT.includes(a.type)) fail(`${path}[${i}]`, "cannot be combined with block in the same rule");
    });
  }
  return actions.filter((a) => a !== undefined);
}

function ruleOf(v: unknown, path: string, fail: Fail): Draft | undefined {
  if (!isObject(v)) return void fail(path, "must be an object");
  unknownFields(v, RULE_FIELDS, path, fail);
  const id = own(v, "id");
  if (id !== undefined && !(typeof id === "string" && ID_RE.test(id))) {
    fail(`${path}.id`, "must be 1 to 64 lowercase letters, digits, _ or -, starting with a letter or digit");
  }
  const name = own(v, "name");
  return {
    id: typeof id === "string" ? id : undefined,
    name: name === undefined ? undefined : text(name, `${path}.name`, fail, RULE_LIMITS.name),
    enabled: flag(own(v, "enabled"), `${path}.enabled`, fail, true),
    match: matchOf(own(v, "match"), `${path}.match`, fail),
    actions: actionsOf(own(v, "actions"), `${path}.actions`, fail),
    stop: flag(own(v, "stop"), `${path}.stop`, fail, false),
  };
}

/** Checks the rules array a user sent and fills defaults; every problem is reported, with its path. */
export function normalizeRules(input: unknown): { ok: true; rules: Rule[] } | { ok: false; errors: RuleError[] } {
  if (!Array.isArray(input)) return { ok: false, errors: [{ path: "rules", message: "must be an array" }] };
  if (input.length > RULE_LIMITS.rules) return { ok: false, errors: [{ path: "rules", message: `must have at most ${RULE_LIMITS.rules} rules` }] };
  const errors: RuleError[] = [];
  const fail: Fail = (path, message) => void errors.push({ path, message });
  const drafts = input.map((raw, i) => ruleOf(raw, `rules[${i}]`, fail));

  const taken = new Map<string, number>();
  drafts.forEach((d, i) => {
    if (d?.id === undefined) return;
    const first = taken.get(d.id);
    if (first === undefined) taken.set(d.id, i);
    else fail(`rules[${i}].id`, `duplicates the id of rules[${first}]`);
  });
  if (errors.length > 0) return { ok: false, errors };

  // A rule without an id is named after its position, so ids stay put while the list does.
  const rules = (drafts as Draft[]).map((d, i): Rule => {
    let id = d.id;
    if (id === undefined) {
      let n = i + 1;
      while (taken.has(`rule-${n}`)) n++;
      id = `rule-${n}`;
      taken.set(id, i);
    }
    return { id, name: d.name ?? id, enabled: d.enabled, match: d.match, actions: d.actions, stop: d.stop };
  });
  return { ok: true, rules };
}

interface Sender { address: string; domain: string }

/** The bare lowercase address, also when a display name slipped through ("Ann <ann@b.com>"). */
function senderOf(from: unknown): Sender {
  let address = typeof from === "string" ? from.trim().toLowerCase() : "";
  const angle = /<([^<>]*)>$/.exec(address);
  if (angle) address = (angle[1] ?? "").trim();
  const at = address.lastIndexOf("@");
  return { address, domain: at >= 0 ? address.slice(at + 1) : "" };
}

function fromMatches(pattern: string, sender: Sender): boolean {
  const p = pattern.toLowerCase();
  if (p === "*") return true;
  if (sender.domain === "") return false;
  const parent = p.startsWith("@*.") ? p.slice(3) : p.startsWith("*.") ? p.slice(2) : null;
  if (parent !== null) return sender.domain.endsWith(`.${parent}`);
  if (p.startsWith("@")) return sender.domain === p.slice(1);
  return sender.address === p;
}

function matches(m: RuleMatch, facts: MessageFacts, sender: Sender): boolean {
  const any = <T>(values: T[] | undefined, test: (v: T) => boolean) => values === undefined || values.some(test);
  const subject = typeof facts.subject === "string" ? facts.subject.toLowerCase() : "";
  return (
    any(m.from, (p) => fromMatches(p, sender)) &&
    any(m.subject_contains, (s) => subject.includes(s.toLowerCase())) &&
    any(m.triage_label, (l) => l === facts.triageLabel) &&
    any(m.risk_level, (r) => r === facts.riskLevel) &&
    any(m.action, (a) => a === facts.action) &&
    any(m.transport, (t) => t === facts.transport)
  );
}

// One label of each name (label names compare case-insensitively), and one of every other kind:
// a message gets one archive, one reply draft and one hand-off to the runtime.
const sameness = (a: RuleAction) => (a.type === "label" ? `label:${a.label.trim().toLowerCase()}` : a.type);

/** The actions the enabled rules, in order, plan for one message. */
export function decide(rules: Rule[], facts: MessageFacts): Decision {
  const sender = senderOf(facts.from);
  const matched: string[] = [];
  const planned: PlannedAction[] = [];
  const seen = new Set<string>();
  let blocked = false;
  for (const rule of rules) {
    if (!rule.enabled || !matches(rule.match, facts, sender)) continue;
    matched.push(rule.id);
    for (const action of rule.actions) {
      const key = sameness(action);
      if (seen.has(key)) continue;
      seen.add(key);
      planned.push({ rule_id: rule.id, action: { ...action } });
    }
    blocked = rule.actions.some((a) => a.type === "block");
    if (blocked || rule.stop) break;
  }
  // An earlier rule's hand-off or reply draft loses to a later block.
  const actions = blocked ? planned.filter((p) => !BLOCKED_OUT.includes(p.action.type)) : planned;
  return { matched_rules: matched, actions, blocked };
}

/** One rule as a user writes it, in JSON Schema 2020-12; a fresh object on every call. */
export function describeRuleSchema(): object {
  const values = (items: object, description: string) => ({ type: "array", minItems: 1, maxItems: RULE_LIMITS.values, items, description });
  const value = (extra: object = {}) => ({ type: "string", minLength: 1, maxLength: RULE_LIMITS.valueLength, ...extra });
  const action = (type: RuleAction["type"], description: string, properties: Record<string, object> = {}, required: string[] = []) => ({
    type: "object",
    description,
    properties: { type: { const: type }, ...properties },
    required: ["type", ...required],
    additionalProperties: false,
  });
  const containsType = (types: string[]) => ({ contains: { type: "object", properties: { type: { enum: types } }, required: ["type"] } });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Autopilot rule",
    description: "Enabled rules are tried in order on every processed inbound message; each matching rule contributes its actions. Rule ids are unique within a mailbox; at most 100 rules.",
    type: "object",
    properties: {
      id: { type: "string", pattern: ID_PATTERN, description: "Defaults to rule-N, N being the rule's position (the next free N when taken)" },
      name: { type: "string", minLength: 1, maxLength: RULE_LIMITS.name, description: "Defaults to the id" },
      enabled: { type: "boolean", default: true },
      match: {
        type: "object",
        description: "Every given condition must hold; within a condition any listed value matches",
        properties: {
          from: values(value({ pattern: FROM_PATTERN }), 'Sender: "a@b.com", "@b.com" (that domain only), "*.b.com" or "@*.b.com" (subdomains only), "*" (anyone); case-insensitive'),
          subject_contains: values(value(), "Case-insensitive substrings of the subject"),
          triage_label: values({ enum: [...TRIAGE_LABELS] }, "Triage labels set by assessment"),
          risk_level: values({ enum: [...RISK_LEVELS] }, "Risk levels set by assessment"),
          action: values(value(), "Agent-protocol action names; a plain email never matches"),
          transport: values({ enum: [...TRANSPORTS] }, "How the message arrived"),
        },
        minProperties: 1,
        additionalProperties: false,
      },
      actions: {
        type: "array",
        minItems: 1,
        maxItems: RULE_LIMITS.actions,
        items: {
          oneOf: [
            action("label", "Apply the label of that name, created if absent", { label: { type: "string", minLength: 1, maxLength: RULE_LIMITS.label, pattern: LABEL_PATTERN } }, ["label"]),
            action("archive", "Archive the message"),
            action("draft_reply", "Prepare a reply draft with this text", { text: { type: "string", minLength: 1, maxLength: RULE_LIMITS.text } }, ["text"]),
            action("forward_to_runtime", "Hand the message to the agent runtime", {
              priority: { enum: [...PRIORITIES], default: "normal" },
              note: { type: "string", maxLength: RULE_LIMITS.note },
            }),
            action("block", "Mark the message blocked: no auto-reply, not routed to the runtime, triaged spam; ends evaluation"),
          ],
        },
        not: { allOf: [containsType(["block"]), containsType(BLOCKED_OUT)] },
        description: "Applied in order; block cannot be combined with forward_to_runtime or draft_reply",
      },
      stop: { type: "boolean", default: false, description: "When the rule matches, no later rule is tried" },
    },
    required: ["match", "actions"],
    additionalProperties: false,
  };
}
