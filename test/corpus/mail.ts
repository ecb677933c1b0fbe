/**
 * Phishing, ordinary ham and newsletter-heavy ham, written for this repository after the
 * shapes such mail has (no message copied from a public collection), in several languages.
 * No message carries an upstream verdict the rules could lean on. Used by
 * test/phish-corpus.test.ts (each mail) and bench/quality-phishing.ts (rates per class).
 */
import { generateKeyPairSync } from "node:crypto";
import { dkimSign } from "mailauth";
import type { Envelope } from "../../src/mail/types.ts";

export type MailClass = "phish" | "ham" | "newsletter";

export interface CorpusMail {
  id: string;
  class: MailClass;
  raw: Uint8Array;
  envelope: Envelope;
  /** Signals the mail must show (phishing: why it is caught). */
  signals?: string[];
}

interface Part {
  type: string;
  filename: string;
  content: string | Uint8Array;
}

interface Spec {
  from: string;
  subject: string;
  text?: string;
  html?: string;
  headers?: string[];
  attachments?: Part[];
  signals?: string[];
  /** Sign with a DKIM key of this domain (its public key is served by the corpus resolver). */
  dkim?: string;
}

const HTTP: Envelope = { mailFrom: null, rcptTo: ["bob@mail.localhost"], remoteAddress: null, heloName: null };
const utf8 = (s: string) => new TextEncoder().encode(s);
const b64 = (b: Uint8Array) => (Buffer.from(b).toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
const encodeWord = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s).toString("base64")}?=`);

let n = 0;
function build(spec: Spec): Uint8Array {
  const fromMatch = /^(.*)<([^>]+)>$/.exec(spec.from);
  const from = fromMatch ? `${encodeWord(fromMatch[1]!.trim().replace(/^"|"$/g, ""))} <${fromMatch[2]}>` : spec.from;
  const head = [`From: ${from}`, "To: Bob Chen <bob@mail.localhost>", `Subject: ${encodeWord(spec.subject)}`, "Date: Mon, 4 Mar 2024 10:00:00 +0000", `Message-ID: <corpus-${++n}@corpus.example>`, "MIME-Version: 1.0", ...(spec.headers ?? [])];
  const parts: string[] = [];
  if (spec.text !== undefined) parts.push(`Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(utf8(spec.text))}`);
  if (spec.html !== undefined) parts.push(`Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(utf8(spec.html))}`);
  const alternative = parts.length > 1 ? `Content-Type: multipart/alternative; boundary="alt"\r\n\r\n--alt\r\n${parts.join("\r\n--alt\r\n")}\r\n--alt--\r\n` : `${parts[0]}\r\n`;
  if (!spec.attachments?.length) return utf8(`${head.join("\r\n")}\r\n${alternative}`);
  const atts = spec.attachments.map(
    (a) => `Content-Type: ${a.type}; name="${a.filename}"\r\nContent-Disposition: attachment; filename="${a.filename}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(typeof a.content === "string" ? utf8(a.content) : a.content)}`,
  );
  return utf8(`${head.join("\r\n")}\r\nContent-Type: multipart/mixed; boundary="mix"\r\n\r\n--mix\r\n${alternative}\r\n--mix\r\n${atts.join("\r\n--mix\r\n")}\r\n--mix--\r\n`);
}

const PDF = utf8("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const CGJ = "\u034f";
const list = (host: string) => [`List-Unsubscribe: <https://${host}/unsubscribe?u=81f2>, <mailto:unsubscribe@${host}>`, "List-Unsubscribe-Post: List-Unsubscribe=One-Click"];

const PHISH: Record<string, Spec> = {
  "metamask-helpdesk-reset": {
    from: "MetaMask Support <support@walletcare.zendesk.com>",
    subject: "Request #48213: wallet password reset",
    text: "Dear user,\n\nWe received a request to reset the password of your MetaMask wallet. If you did not make this request, your wallet will be locked within 24 hours.\nTo keep access, verify your identity here: https://metamask-restore.web.app/verify\n\nMetaMask Support Team",
    signals: ["display_name_spoof", "free_hosting_link"],
  },
  "amazon-callback-combining": {
    from: "Order Update <service.update8812@gmail.com>",
    subject: `Your Am${CGJ}azon order #112-8812 is confirmed`,
    text: `Hello,\n\nYour Am${CGJ}azon order #112-8812 for an Apple iPh${CGJ}one 15 Pro ($1,299.00) has been pl${CGJ}aced.\nIf you did not make this purchase, call our support line at +1 (844) 555-0187 to cancel and get a refund.\n\nAmazon Customer Service`,
    signals: ["callback_scam", "obfuscated_text"],
  },
  "norton-invoice-freemail": {
    from: "Norton LifeLock <norton.billing.center@outlook.com>",
    subject: "Invoice NLT-77310: subscription renewed",
    text: "Dear customer,\n\nYour Norton 360 subscription has been renewed for 3 years. Amount charged: $399.99.\nIf you want to cancel and get a refund, contact our billing team at 1-808-555-0133 within 24 hours.\n\nNorton Billing",
    signals: ["callback_scam", "display_name_spoof", "freemail_brand_sender"],
  },
  "netflix-declined-update": {
    from: "Netflix <billing@account-membership-hold.com>",
    subject: "Your payment was declined",
    html: `<p>Hi,</p><p>We could not process your last payment, so your Netflix membership is on hold.</p><p><a href="https://nf-billing-update.example.info/update">Update your payment details</a> now to keep watching.</p><p>The Netflix Team</p>`,
    signals: ["display_name_spoof", "credential_request"],
  },
  "firmware-upgrade-pdf": {
    from: "IT Service Desk <it-desk@mailhost-upgrade.example.org>",
    subject: "URGENT: mailbox firmware upgrade",
    text: "Attention,\n\nYour mailbox firmware is outdated and must be upgraded immediately. Open the attached instructions and complete the upgrade today to avoid service disruption.\n\nIT Service Desk",
    attachments: [{ type: "application/pdf", filename: "Firmware_Upgrade.pdf", content: PDF }],
    signals: ["lure_attachment"],
  },
  "paypal-lookalike": {
    from: "PayPal <service@paypa1-support.com>",
    subject: "Your account has been limited",
    text: "We noticed unusual activity. Your account has been limited until you confirm your identity at https://paypa1-support.com/confirm",
    signals: ["lookalike_domain"],
  },
  "microsoft-password-expiry": {
    from: "Microsoft 365 <admin@tenant-notices.example.biz>",
    subject: "Password expires today",
    html: `<p>Your password expires today. <a href="https://login-m365.example.biz/keep">Keep current password</a></p>`,
    signals: ["display_name_spoof", "credential_request"],
  },
  "docusign-free-host": {
    from: "DocuSign via Sign <sign@contracts-share.example.net>",
    subject: "Completed: please review and sign the agreement",
    html: `<p>A document has been shared with you for signature.</p><p><a href="https://docs-review-4471.firebaseapp.com/view">REVIEW DOCUMENT</a></p>`,
    signals: ["display_name_spoof", "free_hosting_link"],
  },
  "dhl-customs-fee": {
    from: "DHL Express <noreply@parcel-tracking-info.example.com>",
    subject: "Your parcel is waiting: customs fee due",
    text: "Your DHL parcel could not be delivered. A customs fee of 2.99 EUR is due. Pay within 48 hours at https://dhl-parcel-fee.example.com/pay or it will be returned.",
    signals: ["display_name_spoof"],
  },
  "punycode-apple": {
    from: "Apple ID <no-reply@id-service.example.net>",
    subject: "Your Apple ID was locked",
    html: `<p>Your Apple ID has been locked for security reasons.</p><p><a href="https://xn--pple-43d.com/unlock">Unlock your account</a></p>`,
    signals: ["display_name_spoof", "punycode_domain"],
  },
  "geek-squad-renewal": {
    from: "Geek Squad <geeksquad.renewals@yahoo.com>",
    subject: "Thank you for your order",
    text: "Your Geek Squad protection plan was renewed automatically. Total: $289.99, charged to your card on file. To cancel this renewal or dispute the charge, call 1 (833) 555-0191.",
    signals: ["callback_scam", "freemail_brand_sender"],
  },
  "mcafee-invoice-pdf": {
    from: "Invoice Department <mcafee.invoice.dept@gmail.com>",
    subject: "McAfee Total Protection invoice #MC-22871",
    text: "Your McAfee subscription payment of $349.00 has been processed. See the attached invoice. If this was not authorized call +1 888 555 0172.",
    attachments: [{ type: "application/pdf", filename: "Invoice_MC-22871.pdf", content: PDF }],
    signals: ["callback_scam", "freemail_brand_sender"],
  },
  "bank-locked": {
    from: "Bank of America <alerts@boa-secure-alerts.example.net>",
    subject: "Account suspended",
    text: "Your online banking account has been suspended due to suspicious activity. Sign in to restore access: https://boa-secure-alerts.example.net/restore",
    signals: ["display_name_spoof", "credential_request"],
  },
  "apple-link-text": {
    from: "iCloud <noreply@cloud-storage-notice.example.com>",
    subject: "Your iCloud storage is full",
    html: `<p>Your iCloud storage is full. Photos will be deleted.</p><p><a href="https://storage-upgrade.example.com/login">https://www.icloud.com/storage</a></p>`,
    signals: ["display_name_spoof", "link_text_mismatch"],
  },
  "accounts-payable-freemail": {
    from: "Accounts Payable <ap.acme.corp@outlook.com>",
    subject: "Overdue invoice 4471",
    text: "Hello,\n\nInvoice 4471 is overdue. Please process the wire transfer today to our new bank account; the updated bank details are attached.\n\nAccounts Payable",
    signals: ["freemail_brand_sender", "urgent_payment_language"],
  },
  "ceo-gift-cards": {
    from: "Daniel Moore <ceo.dmoore@gmail.com>",
    subject: "Quick favor",
    text: "Are you available? I need you to buy 5 Apple gift cards of $200 each for a client. Send me pictures of the codes as soon as possible. I am in a meeting.",
    signals: ["urgent_payment_language"],
  },
  "coinbase-lure-domain": {
    from: "Coinbase <no-reply@coinbase-security-alerts.com>",
    subject: "Unusual sign-in attempt",
    text: "We blocked a sign-in to your Coinbase account. If this was not you, verify your identity at https://coinbase-security-alerts.com/verify",
    signals: ["lookalike_domain"],
  },
  "voicemail-html-attachment": {
    from: "Voice Mail <voicemail@pbx-notify.example.net>",
    subject: "New voicemail (0:42) from +1 555 0100",
    text: "You have a new voice message. Listen to it in the attached file.",
    attachments: [{ type: "text/html", filename: "VM_0042.html", content: "<html><body><form action='https://pbx-login.example.net/p'><input name=email><input type=password name=pw></form></body></html>" }],
    signals: ["lure_attachment"],
  },
  "onedrive-share-free-host": {
    from: "OneDrive <share@files-notify.example.org>",
    subject: "Anna shared 'Q1 payroll.xlsx' with you",
    html: `<p>Anna Becker shared a file with you.</p><p><a href="https://q1-payroll-share.weebly.com/">Open</a></p>`,
    signals: ["display_name_spoof", "free_hosting_link"],
  },
  "irs-refund": {
    from: "IRS Refunds <refund@tax-return-status.example.com>",
    subject: "You are eligible for a tax refund",
    text: "After the annual calculation you are eligible for a refund of $842.10. Enter your card details to receive it: https://tax-return-status.example.com/claim. Enter your social security number to confirm.",
    signals: ["display_name_spoof", "credential_request"],
  },
  "zero-width-paypal": {
    from: "Service <service@notice-center.example.net>",
    subject: "Action required on your account",
    text: "Your P\u200ba\u200by\u200bP\u200ba\u200bl account has been limited. Log in to restore your account at https://notice-center.example.net/restore",
    signals: ["hidden_text", "credential_request"],
  },
  "de-sparkasse-tan": {
    from: "Sparkasse Kundenservice <kundenservice@sicherheit-konto.example.de>",
    subject: "Ihr Konto wurde eingeschränkt",
    text: "Sehr geehrter Kunde,\n\nIhr Konto wurde vorübergehend gesperrt. Bitte bestätigen Sie Ihre Identität innerhalb von 24 Stunden: https://sicherheit-konto.example.de/login\nSie können Ihr Passwort auch hier zurücksetzen.\n\nIhr Sparkasse-Team",
    signals: ["credential_request"],
  },
  "fr-colis-frais": {
    from: "La Poste Colissimo <info@suivi-colis-frais.example.fr>",
    subject: "Votre colis est en attente",
    text: "Votre colis n'a pas pu être livré. Des frais de 1,99 EUR sont à régler. Confirmez vos coordonnées bancaires ici : https://suivi-colis-frais.example.fr/paiement avant 24 heures.",
    signals: ["credential_request"],
  },
  "es-banco-bloqueo": {
    from: "Banco Santander <avisos@santander-seguridad.example.es>",
    subject: "Su cuenta ha sido bloqueada",
    text: "Estimado cliente: su cuenta ha sido bloqueada por actividad inusual. Verifique su identidad en https://santander-seguridad.example.es/acceso para desbloquear su cuenta.",
    signals: ["credential_request"],
  },
  "amazon-subject-only": {
    from: "Shipping <ship@order-status-center.example.com>",
    subject: "Your Amazon order could not be shipped",
    text: "There is a problem with your payment method. Please update your payment information to avoid cancellation: https://order-status-center.example.com/billing",
    signals: ["brand_impersonation", "credential_request"],
  },
  "helpdesk-mailbox-quota": {
    from: "Helpdesk <helpdesk@university-mail-support.freshdesk.com>",
    subject: "Mailbox quota exceeded",
    text: "Your mailbox is almost full. Incoming messages will be rejected. Sign in now to avoid losing mail: https://mail-quota-verify.r2.dev/login",
    signals: ["credential_request", "free_hosting_link"],
  },
  "invoice-svg": {
    from: "Billing <billing@partner-invoices.example.com>",
    subject: "Remittance advice",
    text: "Please see the attached remittance advice for your records.",
    attachments: [{ type: "image/svg+xml", filename: "Remittance_Advice.svg", content: "<svg xmlns='http://www.w3.org/2000/svg'><script>location='https://x.example/p'</script></svg>" }],
    signals: ["lure_attachment"],
  },
  "spotify-declined": {
    from: "Spotify <no-reply@premium-renew.example.net>",
    subject: "Problem with your payment",
    html: `<p>Your Spotify Premium payment was declined.</p><p><a href="https://premium-renew.example.net/update">Update billing details</a></p>`,
    signals: ["display_name_spoof", "brand_impersonation"],
  },
  "wells-fargo-form": {
    from: "Wells Fargo Online <online@wf-verify.example.net>",
    subject: "Verify your information",
    html: `<p>Please confirm your details below to keep your online access.</p><form action="https://wf-verify.example.net/p"><input name="user"><input type="password" name="pw"></form>`,
    signals: ["display_name_spoof", "html_form"],
  },
  "crypto-wallet-drain": {
    from: "Trust Wallet <support@wallet-sync-service.example.io>",
    subject: "Your wallet will be disconnected",
    text: "Your Trust Wallet must be synchronised before Friday or it will be disconnected. Send your recovery phrase to complete the validation.",
    signals: ["display_name_spoof", "exfiltration_request"],
  },
  // --- written after the rules, without tuning them to these
  "ups-redelivery": {
    from: "UPS Delivery <tracking@redelivery-notice.example.com>",
    subject: "Delivery attempt failed",
    html: `<p>We attempted to deliver your package today. Schedule a new delivery and pay the 1.50 USD fee: <a href="https://ups-redelivery.example.com/schedule">Reschedule</a></p>`,
    signals: ["display_name_spoof"],
  },
  "invoice-zip-urgent": {
    from: "Accounts <accounts@supplier-billing.example.net>",
    subject: "Final notice: unpaid invoice 99812",
    text: "This is the final notice for invoice 99812. Payment is overdue; open the attached invoice and settle it today to avoid legal action.",
    attachments: [{ type: "application/zip", filename: "Invoice_99812.zip", content: new Uint8Array([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }],
    signals: ["lure_attachment"],
  },
  "linkedin-freemail": {
    from: "LinkedIn Security <linkedin.security.alerts@mail.com>",
    subject: "Unusual sign-in on your LinkedIn account",
    text: "Someone signed in to your LinkedIn account from Lagos. Confirm it was you: https://lnkd-secure-check.example.net/confirm",
    signals: ["display_name_spoof", "freemail_brand_sender"],
  },
  "paypal-callback-invoice": {
    from: "service@billing-paypal-invoices.example.com",
    subject: "You've got an invoice from Crypto Exchange LLC",
    text: "Invoice INV-7731 for $1,498.00 (Bitcoin purchase). This payment will be debited from your PayPal account. If you did not authorize this transaction, call PayPal at +1-808-555-0143 to cancel it.",
    signals: ["callback_scam"],
  },
  "it-ipfs-login": {
    from: "IT Support <support@corp-helpdesk.example.org>",
    subject: "Action required: re-validate your email account",
    html: `<p>Your email account will be deactivated today. Please validate your mailbox to continue receiving mail.</p><p><a href="https://bafybeih.ipfs.dweb.link/login.html">Validate now</a></p>`,
    signals: ["credential_request", "free_hosting_link"],
  },
  "nl-bank": {
    from: "ING Klantenservice <service@ing-beveiliging.example.nl>",
    subject: "Uw rekening is geblokkeerd",
    text: "Geachte klant, uw rekening is tijdelijk geblokkeerd wegens verdachte activiteit. Log in via https://ing-beveiliging.example.nl om de blokkade op te heffen.",
    signals: ["credential_request"],
  },
  "it-poste": {
    from: "Poste Italiane <avvisi@poste-sicurezza.example.it>",
    subject: "Il tuo conto è stato sospeso",
    text: "Gentile cliente, il tuo conto è stato sospeso. Accedi subito per riattivarlo: https://poste-sicurezza.example.it/accesso",
    signals: ["credential_request"],
  },
  "ms-teams-html-attach": {
    from: "Microsoft Teams <noreply@teams-notify.example.com>",
    subject: "You have 3 unread messages",
    text: "You have missed messages in Teams. Open the attachment to view them.",
    attachments: [{ type: "text/html", filename: "Teams_Messages.htm", content: "<html><body>Loading…</body></html>" }],
    signals: ["display_name_spoof", "lure_attachment"],
  },
  "shortener-lure": {
    from: "Rewards Center <rewards@loyalty-points.example.com>",
    subject: "Your Walmart reward is waiting",
    text: "Congratulations! You have been selected to receive a $500 Walmart gift card. Claim it before midnight: https://bit.ly/3xYz9Qa",
    // Caught by its wording and the shortener; "your Walmart reward" is not read as the reader's account or order.
    signals: ["url_shortener", "urgent_payment_language"],
  },
  "apple-combining-subject": {
    from: "Support <support@account-id-review.example.com>",
    subject: `Y${CGJ}our A${CGJ}pple I${CGJ}D has been locked`,
    text: "We locked your Apple ID for security reasons. Unlock your account at https://account-id-review.example.com/unlock",
    signals: ["obfuscated_text", "credential_request"],
  },
};

const HAM: Record<string, Spec> = {
  "colleague-meeting": { from: "Alice Martin <alice@acme.example>", subject: "Tuesday sync", text: "Hi Bob,\n\nCan we move our Tuesday sync to 3pm? The design review runs long.\n\nThanks,\nAlice" },
  "colleague-reply-quoted": { from: "Carol Diaz <carol@acme.example>", subject: "Re: Floor plan", text: "Looks good, approved.\n\nOn Mon, Mar 4, 2024 at 9:14 AM Bob Chen <bob@mail.localhost> wrote:\n> Here is the floor plan for the new office.\n" },
  "friend-dinner": { from: "Sam Okafor <sam.okafor@gmail.com>", subject: "Dinner Saturday?", text: "Hey! Want to get dinner on Saturday? I found a new Ethiopian place near the station. Call me at 555-0123 if that's easier." },
  "freelancer-invoice": { from: "Jane Doe <jane.doe.design@gmail.com>", subject: "Invoice for March", text: "Hi Bob,\n\nAttached is my invoice for the March illustrations, 12 hours as agreed. Payment within 30 days is fine.\n\nBest,\nJane", attachments: [{ type: "application/pdf", filename: "invoice-2024-03.pdf", content: PDF }] },
  "vendor-invoice": { from: "Northwind Supplies <billing@northwind.example>", subject: "Invoice 20931", text: "Dear customer,\n\nPlease find invoice 20931 attached. Questions about it? Call us at +1 206 555 0144.\n\nNorthwind Supplies", attachments: [{ type: "application/pdf", filename: "Invoice-20931.pdf", content: PDF }] },
  "github-reset": { from: "GitHub <noreply@github.com>", subject: "[GitHub] Please reset your password", html: `<p>We heard that you lost your GitHub password. Sorry about that!</p><p><a href="https://github.com/password_reset/abc">Reset your password</a></p>` },
  "amazon-real-order": { from: "Amazon.com <auto-confirm@amazon.com>", subject: "Your Amazon.com order #113-4452", text: "Hello Bob,\n\nThank you for shopping with us. Your order #113-4452 will arrive Thursday.\n\nView or manage your order: https://www.amazon.com/your-orders" },
  "bank-statement-real": { from: "Chase <no.reply.alerts@chase.com>", subject: "Your statement is ready", html: `<p>Your March statement is ready.</p><p><a href="https://secure.chase.com/statements">chase.com</a></p>` },
  "calendar-invite": { from: "Dana Lee <dana@acme.example>", subject: "Invitation: Quarterly planning", text: "You have been invited to Quarterly planning on Thursday, 14 March, 10:00-11:30, room 4B." },
  "de-kollege": { from: "Jens Weber <jens.weber@firma.example.de>", subject: "Angebot Büromöbel", text: "Hallo Bob,\n\nanbei das Angebot für die Büromöbel. Können wir das bis Freitag besprechen?\n\nGrüße\nJens" },
  "fr-collegue": { from: "Claire Martin <claire@societe.example.fr>", subject: "Compte rendu", text: "Bonjour,\n\nVoici le compte rendu de la réunion de lundi. N'hésite pas si tu as des questions.\n\nClaire" },
  "es-amigo": { from: "Ana Ruiz <ana.ruiz@yahoo.es>", subject: "Fotos del viaje", text: "¡Hola! Te mando las fotos del viaje a Sevilla. ¡Qué buenos días pasamos!" },
  "mentions-brand": { from: "Tom Reed <tom@acme.example>", subject: "New laptops", text: "I ordered the new laptops from Amazon for the team, the invoice is in the shared drive. Microsoft licences are next." },
  "password-manager-share": { from: "Priya Nair <priya@acme.example>", subject: "Wi-Fi for the offsite", text: "The guest Wi-Fi password for the offsite is on the whiteboard, I'll share it in person." },
  "support-ticket-real": { from: "Acme Support <support@acme-helpdesk.zendesk.com>", subject: "[Acme] Re: Request #5521", text: "Hi Bob,\n\nThanks for your patience. The export issue is fixed in version 4.2.\n\nAcme Support" },
  "dropbox-real": { from: "Dropbox <no-reply@dropboxmail.com>", subject: "Anna shared a folder with you", html: `<p>Anna shared "Offsite photos" with you.</p><p><a href="https://www.dropbox.com/sh/abc">Go to folder</a></p>` },
  "microsoft-real": { from: "Microsoft account team <account-security-noreply@accountprotection.microsoft.com>", subject: "Microsoft account security code", text: "Please use the following security code for the Microsoft account bo***@mail.localhost. Security code: 481920. If you didn't request this code, you can safely ignore this email." },
  "family-photos-link": { from: "Mom <linda.chen@icloud.com>", subject: "Pictures", text: "Here are the pictures from the weekend, love you!" },
  "receipt-card": { from: "Blue Bottle Cafe <receipts@bluebottle-cafe.example>", subject: "Your receipt", text: "Thanks for your order! Total charged: $8.50 on card ending 4412." },
  "hr-policy": { from: "HR Team <hr@acme.example>", subject: "Updated travel policy", text: "Hi all,\n\nThe updated travel policy is attached. Please read it before booking your next trip.\n\nHR", attachments: [{ type: "application/pdf", filename: "travel-policy-2024.pdf", content: PDF }] },
  "it-real-reset": { from: "Acme IT <it@acme.example>", subject: "Scheduled password rotation", text: "Hi Bob, as every quarter, please change your password on the intranet before 31 March. Questions: call the helpdesk at 555-0100." },
  "pl-kolega": { from: "Kasia Nowak <kasia.nowak@firma.example.pl>", subject: "Spotkanie", text: "Cześć Bob,\n\nczy możemy przełożyć spotkanie na czwartek?\n\nPozdrawiam\nKasia" },
  "landlord": { from: "Mark Bell <markbell1961@hotmail.com>", subject: "Rent receipt", text: "Hi Bob, got your rent for March, thanks. The plumber comes on Wednesday." },
  "conference-cfp": { from: "PyCon Program Committee <program@pycon.example.org>", subject: "Your talk was accepted", text: "Congratulations! Your talk was accepted. Please confirm your attendance by 15 April." },
  // --- written after the rules
  "order-question": { from: "Rita Gomez <rita@acme.example>", subject: "Your Amazon order question", text: "Hi Bob, about your question: the Amazon order for the office chairs arrived yesterday, they're in the storage room." },
  "accountant": { from: "Helen Park CPA <helen@parkcpa.example>", subject: "Tax documents", text: "Hi Bob, please send me your 1099 forms by 15 April so I can file on time. Call me at (415) 555-0199 with questions." },
  "refund-real-shop": { from: "Kite Shop <orders@kiteshop.example>", subject: "Your refund", text: "We processed the refund for order 5521 ($64.00). It will show on your card in 3-5 days. Questions? Call us at 1-800-555-0110." },
  "outlook-user-department": { from: "Facilities Team <facilities@acme.example>", subject: "Parking garage closed Friday", text: "The parking garage is closed on Friday for cleaning. Please use the street lot." },
  "gmail-small-business": { from: "Marco's Plumbing <marcos.plumbing.sf@gmail.com>", subject: "Quote for the bathroom", text: "Hi Bob, the quote for the bathroom work is $1,850, parts included. Let me know if you want to go ahead." },
  "ja-colleague": { from: "田中太郎 <taro@kaisha.example.jp>", subject: "会議の件", text: "ボブさん\n\n明日の会議は10時からでお願いします。\n\n田中" },
  "security-code-real": { from: "Google <no-reply@accounts.google.com>", subject: "Security alert", text: "A new sign-in on Mac. If this was you, you don't need to do anything. If not, we'll help you secure your account: https://myaccount.google.com/notifications" },
  "forwarded-phish-report": { from: "Tom Reed <tom@acme.example>", subject: "Fwd: weird mail", text: "Bob, is this one real? Looks fishy to me.\n\n---------- Forwarded message ---------\nFrom: Someone <x@example.net>\nSubject: hello\n\nPlease check the attached document." },
  "reply-with-signature-phone": { from: "Leo Grant <leo@lawfirm.example>", subject: "Re: Lease", text: "Bob,\n\nI reviewed the lease; two clauses need changes, see attached.\n\nLeo Grant\nGrant & Partners\n+1 (415) 555-0166", attachments: [{ type: "application/pdf", filename: "lease-comments.pdf", content: PDF }] },
};

const ESP_HEADERS = ["Feedback-ID: 1.us-east-1.abc:AmazonSES", "X-SES-Outgoing: 2024.03.04-54.240.0.1"];
const NEWSLETTER: Record<string, Spec> = {
  "sendgrid-tracking": {
    from: "Acme Cloud <news@acmecloud.example>", subject: "What's new in March",
    headers: [...list("acmecloud.example"), "X-SG-EID: abc123"],
    html: `<h1>March updates</h1><p>Read the changelog at <a href="https://u123.ct.sendgrid.net/ls/click?upn=x">www.acmecloud.example/changelog</a></p>`,
  },
  "mailgun-tracking": {
    from: "Shop Daily <deals@shopdaily.example>", subject: "Spring sale",
    headers: [...list("shopdaily.example"), "X-Mailgun-Sid: WyI1Y2Q", "X-Mailgun-Tag: spring"],
    dkim: "mg.shopdaily-mail.example",
    html: `<p>Up to 40% off. <a href="https://email.mg.shopdaily-mail.example/c/eJx">shopdaily.example/sale</a></p>`,
  },
  "ses-tracking": {
    from: "Travel Weekly <hello@travelweekly.example>", subject: "Five weekend trips",
    headers: [...list("travelweekly.example"), ...ESP_HEADERS],
    html: `<p>Our picks: <a href="https://abc.r.us-east-1.awstrack.me/L0/https:%2F%2Ftravelweekly.example%2Ftrips">travelweekly.example/trips</a></p>`,
  },
  "own-click-domain": {
    from: "Dev Digest <digest@devdigest.example>", subject: "Issue 112",
    headers: [...list("click.devdigest-mail.example")],
    html: `<p>Top story: <a href="https://click.devdigest-mail.example/t/9912">devdigest.example/112</a></p>`,
  },
  "microsoft-esp-dkim": {
    from: "Microsoft Rewards <microsoftrewards@email.microsoftrewards.example>", subject: "You've earned points",
    headers: list("email.microsoftrewards.example"),
    dkim: "microsoft.com",
    html: `<p>You earned 50 points this week.</p>`,
  },
  "paypal-real-news": {
    from: "PayPal <paypal@mail.paypal.com>", subject: "New ways to pay in stores",
    headers: list("mail.paypal.com"),
    html: `<p>Pay in stores with your phone. <a href="https://epl.paypal-communication.com/T/v123">www.paypal.com/instore</a></p>`,
  },
  "tech-news-brands": {
    from: "The Verge-ish <newsletter@technews.example>", subject: "Google's new account security features and Amazon's order tracker",
    headers: list("technews.example"),
    text: "Google is changing how account recovery works. Amazon's order tracker gets a redesign. Netflix raises subscription prices.",
  },
  "mailchimp-shop": {
    from: "Corner Bakery <hello@cornerbakery.example>", subject: "Fresh sourdough this week",
    headers: [...list("cornerbakery.us1.list-manage.com"), "X-MC-User: 8811"],
    html: `<p>Order online: <a href="https://cornerbakery.us1.list-manage.com/track/click?u=1">cornerbakery.example/order</a></p>`,
  },
  "hubspot-b2b": {
    from: "Acme Analytics <marketing@acmeanalytics.example>", subject: "Webinar: dashboards that work",
    headers: [...list("acmeanalytics.example"), "X-HS-Cid: 1234"],
    html: `<p>Register: <a href="https://t.hubspotlinks.com/Ctc/x">acmeanalytics.example/webinar</a></p>`,
  },
  "substack-post": {
    from: "Ana's Notes <ananotes@substack.com>", subject: "On slow mornings",
    headers: [...list("substack.com"), "List-Id: <ananotes.substack.com>"],
    html: `<p>New post. <a href="https://substack.com/redirect/abc">ananotes.example.com</a></p>`,
  },
  "klaviyo-store": {
    from: "Trail Gear <news@trailgear.example>", subject: "Your cart misses you",
    headers: [...list("trailgear.example"), "X-Klaviyo-Message-Id: k1"],
    html: `<p>Still thinking it over? <a href="https://trk.klclick.com/ls/click?upn=z">trailgear.example/cart</a></p>`,
  },
  "bank-marketing-real": {
    from: "Barclays <barclays@email.barclays.co.uk>", subject: "Save more this spring",
    headers: list("email.barclays.co.uk"),
    html: `<p>Our new savings account. <a href="https://email.barclays.co.uk/c/1">barclays.co.uk/savings</a></p>`,
  },
  "linkedin-digest": {
    from: "LinkedIn <messages-noreply@linkedin.com>", subject: "Bob, you appeared in 12 searches",
    headers: list("linkedin.com"),
    html: `<p>See who's looking. <a href="https://www.linkedin.com/comm/me/search-appearances">linkedin.com</a></p>`,
  },
  "de-newsletter": {
    from: "Stadtbibliothek <newsletter@bibliothek.example.de>", subject: "Veranstaltungen im März",
    headers: [...list("bibliothek.example.de"), "X-CSA-Complaints: csa-complaints@eco.de"],
    html: `<p>Lesungen und Workshops: <a href="https://news.rs6.net/tn.jsp?f=001">bibliothek.example.de/maerz</a></p>`,
  },
  "fr-newsletter": {
    from: "Le Petit Journal Tech <lettre@journaltech.example.fr>", subject: "La semaine en bref",
    headers: list("journaltech.example.fr"),
    text: "Cette semaine : Apple présente de nouveaux iPad, Microsoft met à jour Windows.",
  },
  "github-newsletter": {
    from: "GitHub <noreply@github.com>", subject: "Your weekly digest",
    headers: list("github.com"),
    html: `<p>Trending in your network. <a href="https://github.com/trending">github.com/trending</a></p>`,
  },
  "event-organiser": {
    from: "Google Developer Group Copenhagen <info@meetup.com>", subject: "New event: Build with Gemini",
    headers: list("meetup.com"),
    html: `<p>Join us on 20 March. <a href="https://www.meetup.com/gdg-cph/events/1">meetup.com/gdg-cph</a></p>`,
  },
  "sendinblue-charity": {
    from: "Save the Rivers <contact@savetherivers.example.org>", subject: "Spring cleanup day",
    headers: [...list("savetherivers.example.org"), "X-Mailjet-Campaign: 11"],
    html: `<p>Volunteer with us. <a href="https://x1.mjt.lu/lnk/abc">savetherivers.example.org/volunteer</a></p>`,
  },
  "retailer-receipt-esp": {
    from: "Home Depot-ish <receipts@homestore.example>", subject: "Your receipt",
    headers: [...list("homestore.example"), ...ESP_HEADERS],
    html: `<p>Thanks for your purchase. <a href="https://abc.r.us-east-1.awstrack.me/L0/x">homestore.example/receipt</a></p>`,
  },
  // --- written after the rules
  "airline-offers": {
    from: "SkyAir <offers@skyair.example>", subject: "Fly to Lisbon from 49 EUR",
    headers: [...list("skyair.example"), "X-SFMC-Stack: 10"],
    html: `<p>Book now: <a href="https://click.e.skyair-mail.example/?qs=abc">www.skyair.example/lisbon</a></p>`,
  },
  "saas-billing-notice": {
    from: "Acme Cloud Billing <billing@acmecloud.example>", subject: "Your invoice for March is available",
    headers: [...list("acmecloud.example"), ...ESP_HEADERS],
    html: `<p>Your invoice is ready. <a href="https://acmecloud.example/billing">acmecloud.example/billing</a></p>`,
  },
  "amazon-marketing": {
    from: "Amazon.com <store-news@amazon.com>", subject: "Deals picked for you",
    headers: list("amazon.com"),
    html: `<p>Deals: <a href="https://www.amazon.com/gp/r.html?C=1">amazon.com/deals</a></p>`,
  },
  "press-digest-links": {
    from: "Morning Brief <brief@morningbrief.example>", subject: "Apple, PayPal and Netflix report earnings",
    headers: [...list("morningbrief.example"), "X-Campaign: 2024-03-04"],
    html: `<p>Apple beat estimates (<a href="https://link.morningbrief.example/click/1">apple.com</a>), PayPal lowered guidance, and Netflix added subscribers.</p>`,
  },
  "nonprofit-donation": {
    from: "Clean Water Fund <donate@cleanwater.example.org>", subject: "Your donation receipt",
    headers: list("cleanwater.example.org"),
    text: "Thank you for your donation of $50. This receipt is for your tax records.",
  },
  "newsletter-preheader": {
    from: "Weekend Reads <reads@weekendreads.example>", subject: "Three long reads",
    headers: list("weekendreads.example"),
    html: `<div style="display:none;max-height:0">Our picks for your weekend, in three stories.</div><p>Story one…</p>`,
  },
};

const SELECTOR = "corpus";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
const PRIVATE_PEM = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const DKIM_RECORD = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;

async function make(cls: MailClass, specs: Record<string, Spec>): Promise<CorpusMail[]> {
  const out: CorpusMail[] = [];
  for (const [id, spec] of Object.entries(specs)) {
    let raw = build(spec);
    if (spec.dkim) {
      const signed = await dkimSign(Buffer.from(raw), { signatureData: [{ signingDomain: spec.dkim, selector: SELECTOR, privateKey: PRIVATE_PEM }] } as unknown as Parameters<typeof dkimSign>[1]);
      raw = new Uint8Array(Buffer.concat([Buffer.from(signed.signatures), Buffer.from(raw)]));
    }
    out.push({ id, class: cls, raw, envelope: HTTP, signals: spec.signals });
  }
  return out;
}

/** Answers like node:dns resolve(): the corpus's DKIM keys, nothing else (no network). */
export async function corpusResolver(name: string, rrtype: string): Promise<string[][]> {
  const m = /^corpus\._domainkey\.(.+)$/i.exec(name);
  if (rrtype === "TXT" && m) return [[DKIM_RECORD]];
  throw Object.assign(new Error(`query${rrtype} ENOTFOUND ${name}`), { code: "ENOTFOUND" });
}

/** The corpus, DKIM-signed where a mail says so. */
export async function loadCorpus(): Promise<CorpusMail[]> {
  return [...(await make("phish", PHISH)), ...(await make("ham", HAM)), ...(await make("newsletter", NEWSLETTER))];
}
