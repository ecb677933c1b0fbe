/**
 * Text written for the model that reads the mail rather than for the person it is addressed
 * to. Patterns run on normalizeForMatch() output (lower case, single spaces, invisible
 * characters and tag-smuggled ASCII resolved), start with a literal word and use only
 * bounded repetition, so each is linear in the text length.
 *
 * Each pattern needs something a human correspondent would not write: an override of
 * "previous instructions" (not "my previous email"), a request for the system prompt, an
 * AI addressed as such, or a chat-template token.
 */
import { someGated } from "./word-gate.ts";

// Who an injection addresses. Plain "assistant"/"agent" are people too, so they only count
// with a qualifier.
const AI = String.raw`(?:ai|a\.i\.|llms?|large language models?|language models?|ai (?:assistant|agent|model|system)s?|automated (?:assistant|agent|system)s?|(?:email|mail|inbox|virtual) (?:assistant|agent)s?|chatbots?|gpt|chatgpt|claude|gemini|copilot)`;
const OBJECT = String.raw`(?:instructions?|prompts?|rules|directions|guidelines|context|constraints|commands|programming|directives|system prompt|system message)`;
const QUALIFIER = String.raw`(?:previous|prior|above|earlier|preceding|original|initial|system|existing|developer|default)`;

export const INJECTION_PATTERNS: RegExp[] = [
  // "ignore all previous instructions", "disregard your rules", "override the system prompt"
  new RegExp(
    String.raw`\b(?:ignore|disregard|forget|override|bypass|discard) (?:(?:all|any|every) (?:of )?(?:the |your |these |those )?(?:${QUALIFIER} )?|(?:the |your |these |those |my )?${QUALIFIER} |your )${OBJECT}\b`,
  ),
  /\bforget (?:everything|all) (?:you (?:were|have been|are) told|above|before|previously|you know)\b/,
  // "reveal your system prompt", "print the hidden instructions"
  /\b(?:reveal|print|show|output|repeat|display|leak|disclose|share|tell me|send me|return|dump|write out|paste) (?:me )?(?:your |the |all |its |any )?(?:full |entire |complete |exact |original |hidden |secret |initial |current )?(?:system (?:prompt|message|instructions?)|hidden (?:prompt|instructions?)|initial (?:prompt|instructions?)|developer (?:message|instructions?)|pre-?prompt|instructions you (?:were|have been) given)\b/,
  // role hijack: "you are now DAN", "from now on you will", "pretend to be an unrestricted AI"
  /\byou are now (?:an? )?(?:ai|assistant|agent|dan|jailbroken|unrestricted|unfiltered|free from|no longer bound|in (?:developer|god|dan|jailbreak|debug|admin) mode)\b/,
  /\bfrom now on,? (?:you (?:are|will|must|shall|should)|act as|pretend|respond as|ignore|your (?:new )?(?:role|instructions|task))\b/,
  new RegExp(String.raw`\b(?:act|behave|respond|operate|roleplay) as (?:if you (?:are|were) )?(?:an? |the )?(?:unrestricted|unfiltered|jailbroken|uncensored|different|new|evil) (?:ai|assistant|agent|model|chatbot|persona)\b`),
  /\bpretend (?:to be|you are|you're) (?:an? |the )?(?:unrestricted|unfiltered|jailbroken|different|system|admin|administrator|developer|root)\b/,
  /\b(?:enable|enter|activate|switch to) (?:dan|jailbreak|god|developer) mode\b|\bdo anything now\b/,
  /\b(?:new|updated|additional|revised) system (?:instructions?|prompt|message)\b|\bsystem (?:override|instruction|prompt) ?:/,
  // an AI addressed as such
  new RegExp(String.raw`\b(?:dear|hey|hi|hello|attention|attn|note to|message to|instructions? (?:for|to)|memo to) (?:the |any |all |an? |my |our |every )?${AI}\b`),
  new RegExp(String.raw`\bif you(?:'re| are) (?:an? |the )?${AI}\b`),
  new RegExp(String.raw`\b${AI} (?:reading|processing|parsing|summari[sz]ing|handling|triaging|analy[sz]ing) this (?:email|e-mail|message|mail|inbox|thread)\b`),
  // chat-template and prompt-format tokens
  /<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id)\|>|\[\/?inst\]|\[(?:system|sys)\]|<<\/?sys>>|#{2,} ?(?:system|instruction)s? ?(?:prompt|message)?:/,
  // secrecy towards the person the model works for
  /\b(?:do not|don't|never) (?:tell|inform|mention (?:this )?to|alert|notify|reveal (?:this )?to|let) (?:the |your )?(?:user|human|owner|operator|principal)\b/,
];

export const isInjection = (normalized: string): boolean => someGated(INJECTION_PATTERNS, normalized);

// "Never share your verification code" is what legitimate senders write.
const NOT = String.raw`(?<!\b(?:never|not|don't|won't|nobody will|no one will) )`;

/**
 * Asks for the mailbox's contents or secrets to be sent somewhere: aimed at an agent with
 * mailbox access far more than at a person.
 */
export const EXFILTRATION_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\b${NOT}(?:forward|send|email|upload|post|exfiltrate|copy) (?:me )?(?:all (?:of )?(?:the |your |their )?(?:emails?|messages|mail|contacts|conversations)|(?:the |your |their )?(?:entire |whole |full |complete )(?:inbox|mailbox|conversation history|chat history|contact list|email history))\b`),
  new RegExp(String.raw`\b${NOT}(?:send|share|provide|reply with|forward|give me|paste) (?:me |us )?(?:your |the |any |all )?(?:stored |saved )?(?:passwords?|credentials|api keys?|access tokens?|auth tokens?|secret keys?|private keys?|seed phrases?|recovery phrases?|one[- ]time (?:codes?|passwords?)|otp codes?|2fa codes?|verification codes?|security codes?|login codes?)\b`),
];

export const isExfiltration = (normalized: string): boolean => someGated(EXFILTRATION_PATTERNS, normalized);
