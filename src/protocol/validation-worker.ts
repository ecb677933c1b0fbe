/**
 * One thread of the validation pool (validation.ts): validates an instance against a schema,
 * compiling each schema version once per thread. The pool owns the time budget and
 * terminates this thread when a validation overruns it.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { serveWorker } from "../workers/serve.ts";
import { compile, issuesOf, type SchemaIssue } from "./json-schema.ts";

export type ValidationCall = { key: string; schema: object; instance: unknown };

const MAX_COMPILED = 200;
const compiled = new Map<string, ValidateFunction>();

serveWorker<ValidationCall, SchemaIssue[]>(({ key, schema, instance }) => {
  let fn = compiled.get(key);
  if (!fn) {
    fn = compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, fn);
  }
  return issuesOf(fn, instance);
});
