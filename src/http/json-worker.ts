import { serveWorker } from "../workers/serve.ts";
import { parseJsonObject, toWire, type ParseWire } from "./json-parse.ts";

// A large JSON body is decoded, bounded and parsed here; only the finished object crosses back.
serveWorker<Uint8Array, ParseWire>((bytes) => toWire(parseJsonObject(bytes)));
