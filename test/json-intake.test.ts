import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { t as T } from "elysia";
import { AppError } from "../src/errors.ts";
import { JsonIntake } from "../src/http/json-intake.ts";
import { BodyRefusal } from "../src/http/json-parse.ts";
import { schemaFromWire, schemaToWire } from "../src/http/schema-wire.ts";
import { bodyCheck } from "../src/http/validation.ts";
import { expectError, fieldPaths, seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * Large JSON bodies are parsed and checked against their route's schema in the JSON worker
 * (issue 13): a refused body never crosses back to the event loop, only its refusal, which is
 * the very refusal the event loop's own check makes.
 */

const Policy = T.Object(
  { allow_outbound: T.Optional(T.Boolean()), max_outbound_per_day: T.Optional(T.Integer({ minimum: 0, maximum: 1000 })) },
  { additionalProperties: false },
);
const Send = T.Object(
  {
    to: T.Array(T.String({ format: "email", maxLength: 320 }), { minItems: 1, maxItems: 50 }),
    subject: T.String({ maxLength: 998 }),
    textBody: T.Optional(T.Union([T.String({ maxLength: 8 << 20 }), T.Null()])),
    id: T.Optional(T.String({ format: "uuid" })),
  },
  { additionalProperties: false },
);

const intake = new JsonIntake({ workers: 1, timeoutMs: 30_000, inlineMaxBytes: 1024 });
afterAll(() => intake.close());

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const pad = "x".repeat(64 * 1024);
/** What the event loop's own check says of `body`: the refusal, or undefined. */
function mainThreadVerdict(schema: Parameters<typeof bodyCheck>[0], body: unknown): AppError | undefined {
  try {
    bodyCheck(schema)(body);
    return undefined;
  } catch (err) {
    return err as AppError;
  }
}

describe("schemas cross to the worker", () => {
  test("a schema's wire form checks exactly as the schema does, transforms and formats included", () => {
    for (const schema of [Policy, Send, T.Optional(Policy)]) {
      const wire = schemaToWire(schema);
      expect(wire).toBeDefined();
      const back = bodyCheck(schemaFromWire(wire!) as never);
      const original = bodyCheck(schema);
      const samples = [
        {},
        { allow_outbound: true },
        { allow_outbound: "yes" },
        { max_outbound_per_day: 5 },
        { max_outbound_per_day: "5" },
        { max_outbound_per_day: 5000 },
        { extra: 1 },
        { to: ["a@example.com"], subject: "s" },
        { to: ["not an address"], subject: "s" },
        { to: ["a@example.com"], subject: "s", id: "nope" },
        { to: ["a@example.com"], subject: "s", textBody: null },
      ];
      for (const sample of samples) {
        const verdict = (check: (b: unknown) => void) => {
          try {
            check(sample);
            return "ok";
          } catch (err) {
            return `${(err as AppError).message} ${JSON.stringify((err as AppError).details)}`;
          }
        };
        expect(verdict(back)).toBe(verdict(original));
      }
    }
  });

  test("a schema with a function it cannot carry has no wire form (its bodies are checked on the event loop)", () => {
    expect(schemaToWire({ ...Policy, check: () => true })).toBeUndefined();
    expect(schemaToWire({ type: "object", [Symbol("local")]: 1 })).toBeUndefined();
  });
});

describe("the JSON worker checks what it parses", () => {
  test("a refused body comes back as its refusal only, the same one the event loop would make", async () => {
    const body = { allow_outbound: "a".repeat(2 << 20) };
    const parsed = await intake.parse(bytes(body), schemaToWire(Policy));
    expect(parsed).toBeInstanceOf(BodyRefusal);
    const refusal = (parsed as BodyRefusal).error;
    const expected = mainThreadVerdict(Policy, body)!;
    expect(refusal.code).toBe("validation_error");
    expect(refusal.message).toBe(expected.message);
    expect(refusal.details).toEqual(expected.details);
  });

  test("an accepted body comes back once, marked as checked; one parsed on the event loop or without a schema is not", async () => {
    const body = { to: ["a@example.com"], subject: "big", textBody: pad };
    const parsed = await intake.parse(bytes(body), schemaToWire(Send));
    expect(parsed).toEqual(body);
    expect(intake.checked(parsed)).toBe(true);
    const unchecked = await intake.parse(bytes(body));
    expect(unchecked).toEqual(body);
    expect(intake.checked(unchecked)).toBe(false);
    const small = await intake.parse(bytes({ allow_outbound: true }), schemaToWire(Policy));
    expect(small).toEqual({ allow_outbound: true });
    expect(intake.checked(small)).toBe(false);
  });

  test("bound and syntax refusals still come first", async () => {
    const broken = new TextEncoder().encode(`{"allow_outbound": "${pad}"`);
    const parsed = await intake.parse(broken, schemaToWire(Policy));
    expect((parsed as BodyRefusal).error.code).toBe("invalid_json");
  });
});

describe("over HTTP", () => {
  let svc: TestService;
  let seed: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    svc = await startTestService();
    seed = await seedAccount(svc);
  });
  afterAll(() => svc.stop());

  test("a large body of the wrong type gets the same answer as a small one, and changes nothing", async () => {
    const path = `/v1/mailboxes/${seed.agent.id}/policy`;
    const small = await svc.api("PUT", path, { token: seed.agentKey.token, body: { allow_outbound: "no", allow_auto_reply: false } });
    const large = await svc.api("PUT", path, { token: seed.agentKey.token, body: { allow_outbound: "n".repeat(3 << 20), allow_auto_reply: false } });
    expectError(small, 400, "validation_error");
    expectError(large, 400, "validation_error");
    expect(large.body.error.message).toBe(small.body.error.message);
    expect(large.body.error.details).toEqual(small.body.error.details);
    expect(fieldPaths(large)).toEqual(["body.allow_outbound"]);
    expect((await svc.api("GET", path)).body.policy.allow_auto_reply).toBe(true);
  });

  test("a large valid body checked in the worker is applied", async () => {
    const res = await svc.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, { token: seed.agentKey.token, body: { to: ["a@example.com"], subject: "big", textBody: pad } });
    expect(res.status).toBe(201);
    expect(res.body.draft.text_body).toBe(pad);
  });
});

describe("a route's large text fields cross back as UTF-8 bytes", () => {
  const big = "é€".repeat(40_000) + "end"; // past 64 KiB of UTF-8, not ASCII
  test("a large field comes out of the body as its UTF-8 bytes; a small one stays a string", async () => {
    const body = { to: ["a@example.com"], subject: "s", textBody: big, id: undefined };
    const parsed = (await intake.parse(bytes(body), schemaToWire(Send), ["textBody", "subject"])) as Record<string, unknown>;
    expect(parsed instanceof BodyRefusal).toBe(false);
    expect(parsed.textBody).toBeUndefined();
    expect(parsed.subject).toBe("s");
    const texts = intake.texts(parsed)!;
    expect(Object.keys(texts)).toEqual(["textBody"]);
    expect(new TextDecoder().decode(texts.textBody!.bytes)).toBe(big);
    expect(texts.textBody!.sha256).toBe(new Bun.CryptoHasher("sha256").update(big).digest("hex"));
  });

  test("the fingerprint of a body is the same whether its large text came as a string or as bytes", async () => {
    const { fingerprint } = await import("../src/http/idempotency.ts");
    const body = { to: ["a@example.com"], subject: "s", textBody: big };
    const parsed = (await intake.parse(bytes(body), schemaToWire(Send), ["textBody"])) as Record<string, unknown>;
    const detached = fingerprint("POST", "/x", parsed, intake.texts(parsed));
    expect(detached).toBe(fingerprint("POST", "/x", body));
    expect(detached).not.toBe(fingerprint("POST", "/x", { ...body, textBody: big + "!" }));
  });

  test("a refused body keeps nothing back", async () => {
    const parsed = await intake.parse(bytes({ to: [], subject: "s", textBody: big }), schemaToWire(Send), ["textBody"]);
    expect(parsed instanceof BodyRefusal).toBe(true);
    expect(intake.texts(parsed)).toBeUndefined();
  });
});
