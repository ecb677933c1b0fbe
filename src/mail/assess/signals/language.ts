/**
 * Wording of business-email compromise and credential phishing. Same discipline as
 * injection.ts: normalised text, literal first words, bounded repetition only.
 */
import { isExfiltration, isInjection } from "../injection.ts";
import { someGated } from "../word-gate.ts";
import type { AssessContext } from "../model.ts";

export const PAYMENT_PATTERNS: RegExp[] = [
  /\bwire (?:transfer|payment|the (?:funds|money|payment|amount))\b/,
  /\b(?:buy|purchase|get|pick up|send me|need) (?:[^ ]{1,30} ){0,3}gift ?cards?\b/,
  /\b(?:itunes|google play|steam|amazon|apple|ebay|visa|vanilla|target|walmart) gift ?cards?\b/,
  /\bgift ?cards?\b.{0,80}\b(?:scratch|the codes?|pictures? of|photos? of)\b/,
  /\burgent(?:ly)? (?:[^ ]{1,20} ){0,2}(?:payment|invoice|wire|transfer|remittance)\b/,
  /\b(?:change|update|new|updated|changed|revised) (?:of |to |in )?(?:our |my |the |your )?(?:bank(?:ing)?|account|payment|remittance|wire|beneficiary) (?:details|information|info|instructions)\b/,
  /\b(?:new|different|updated) (?:bank|beneficiary) account\b/,
  /\bpay(?:ment)? (?:must be made |is required |is needed |needs to be made )?(?:immediately|right away|within (?:24|48) hours)\b/,
  /\b(?:process|make|send|complete) (?:a |the |this )?(?:wire|payment|transfer) (?:today|now|immediately|asap|urgently|right away)\b/,
  /\b(?:bitcoin|btc|crypto(?:currency)?|usdt) (?:wallet|address|payment)\b/,
];

export const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(?:verify|confirm|validate|re-?enter|re-?confirm|update) (?:your |the )?(?:identity|password|login|credentials|billing (?:information|details)|payment (?:details|information|method)|mailbox|email account)\b/,
  /\b(?:unlock|reactivate|re-activate|restore|recover) (?:your )?(?:account|mailbox|access)\b/,
  /\b(?:account|mailbox|password|email) (?:has been|will be|is being|is) (?:suspended|locked|disabled|deactivated|terminated|limited|restricted|compromised|blocked)\b/,
  /\bpassword (?:expires|will expire|has expired|is expiring)\b/,
  /\b(?:mailbox|email|storage) (?:storage |quota )?(?:is )?(?:full|exceeded|almost full)\b/,
  /\b(?:log ?in|sign ?in) (?:now |here |below |immediately )?to (?:avoid|prevent|keep|restore|unlock|verify|confirm)\b/,
  /\benter your (?:password|pin|credentials|login details|card (?:number|details)|social security)\b/,
  // The same lures in the languages of the mail we see most (German, French, Spanish, Italian, Portuguese, Dutch, Polish).
  /(?:konto|zugang|karte|postfach) (?:wurde|ist|wird) (?:vorübergehend |vorlaufig |vorläufig )?(?:gesperrt|eingeschränkt|deaktiviert|limitiert)/,
  /bestätigen sie (?:ihre|ihr) (?:identität|daten|zugangsdaten|konto|kontodaten|zahlungsdaten|angaben)/,
  /(?:votre|ton) compte (?:a été|est|sera) (?:temporairement )?(?:suspendu|bloqué|limité|désactivé|restreint)/,
  /(?:confirmez|vérifiez|mettez à jour) (?:vos|votre) (?:coordonnées bancaires|identité|informations|identifiants|données bancaires|moyen de paiement)/,
  /(?:su|tu) cuenta (?:ha sido|fue|será|está) (?:temporalmente )?(?:bloqueada|suspendida|limitada|desactivada|restringida)/,
  /(?:verifique|confirme|actualice|verifica|confirma|actualiza) (?:su|sus|tu|tus) (?:identidad|datos|información|credenciales|método de pago)/,
  /(?:il tuo|il suo) (?:account|conto) (?:è stato|e stato|sarà) (?:temporaneamente )?(?:sospeso|bloccato|limitato|disattivato)/,
  /(?:sua|a sua) conta (?:foi|está|será) (?:temporariamente )?(?:bloqueada|suspensa|limitada|desativada)/,
  /(?:uw|je) (?:account|rekening) (?:is|wordt|werd) (?:tijdelijk )?(?:geblokkeerd|opgeschort|beperkt|gedeactiveerd)/,
  /(?:twoje|pana|pani) konto (?:zostało|zostanie|jest) (?:tymczasowo )?(?:zablokowane|zawieszone|ograniczone)/,
];

export const urgentPaymentLanguage = (ctx: AssessContext): boolean => someGated(PAYMENT_PATTERNS, ctx.allText);
export const credentialRequest = (ctx: AssessContext): boolean => someGated(CREDENTIAL_PATTERNS, ctx.allText);
export const promptInjection = (ctx: AssessContext): boolean => isInjection(ctx.allText);
export const exfiltrationRequest = (ctx: AssessContext): boolean => isExfiltration(ctx.allText);
