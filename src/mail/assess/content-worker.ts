/**
 * One thread of the Assessor's content pool (index.ts): the content verdict of a message that
 * was not parsed from MIME (an agent protocol message). Mail gets its verdict in the parser's
 * worker instead, where the parsed parts already are.
 */
import { threadId } from "node:worker_threads";
import { serveWorker } from "../../workers/serve.ts";
import { assessMessageContent, type ContentInput, type ContentVerdict } from "./content.ts";

export type ContentRequest = { input: ContentInput; mailDomain: string };
/** The verdict, and the thread that made it (0 would be the main thread). */
export type ContentReply = { verdict: ContentVerdict | null; threadId: number };

serveWorker<ContentRequest, ContentReply>(({ input, mailDomain }) => ({ verdict: assessMessageContent(input, mailDomain), threadId }));
