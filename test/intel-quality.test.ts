import { describe, expect, test } from "bun:test";
import { type Field, type QualityReport, measureQuality } from "./intel-quality.ts";

/** Floors for the fields every fixture labels; the others are reported by the bench only. */
const FLOORS: Field[] = ["dates", "amounts", "urls", "emails"];
const MIN_PRECISION = 0.9;
const MIN_RECALL = 0.8;

describe("local extractor on the labelled fixtures", () => {
  let report: QualityReport;

  test("the fixture set is big enough to mean something", async () => {
    report = await measureQuality();
    expect(report.fixtures).toBeGreaterThanOrEqual(40);
  });

  for (const field of FLOORS) {
    test(`${field}: precision ≥ ${MIN_PRECISION}, recall ≥ ${MIN_RECALL}`, async () => {
      report ??= await measureQuality();
      const score = report.fields[field];
      // On failure, show what was missed or wrongly found for this field.
      const misses = report.misses.filter((m) => m.fields[field]).map((m) => ({ fixture: m.name, ...m.fields[field] }));
      expect(score.precision, JSON.stringify(misses)).toBeGreaterThanOrEqual(MIN_PRECISION);
      expect(score.recall, JSON.stringify(misses)).toBeGreaterThanOrEqual(MIN_RECALL);
    });
  }
});
