/**
 * Replies with their expected new text, written for this repository after the shapes real
 * clients produce (no mail here is copied from another project's fixtures): reply headers in
 * many languages, Outlook header blocks and their translations, dividers, date-only headers,
 * a header sharing a line with the answer, HTML quotes, bottom posting, interleaved answers
 * and signatures. Used by test/reply-corpus.test.ts (each case) and bench/quality-replies.ts
 * (exact match and token F1 over all).
 */
export interface ReplyCase {
  id: string;
  text?: string;
  html?: string;
  /** The expected extracted text. */
  reply: string;
  /** A phrase of the removed history that must be kept in the quoted text. */
  quoted?: string;
}

const OLD = "Could you send me the updated floor plan before Thursday?\n\nThanks,\nBob";
const q = (s: string) =>
  s
    .split("\n")
    .map((l) => (l ? `> ${l}` : ">"))
    .join("\n");

export const REPLY_CASES: ReplyCase[] = [
  // --- "On … wrote:" and its translations, top-posted over ">" quotes
  { id: "en-gmail", text: `Attached is the new plan.\n\nBest,\nAlice\n\nOn Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n\n${q(OLD)}\n`, reply: "Attached is the new plan.\n\nBest,\nAlice", quoted: "floor plan" },
  { id: "en-gmail-wrapped", text: `I will send it tonight.\n\nOn Mon, Jan 8, 2024 at 9:14 AM Robert Stone of the Facilities Planning Office <\nrobert.stone.facilities@example.com> wrote:\n\n${q(OLD)}`, reply: "I will send it tonight.", quoted: "floor plan" },
  { id: "en-apple", text: `Yes, will do.\n\n> On 8 Jan 2024, at 09:14, Bob Stone <bob@example.com> wrote:\n>\n${q(OLD)}`, reply: "Yes, will do.", quoted: "floor plan" },
  { id: "en-thunderbird-top", text: `Sending it now.\n\nOn 1/8/24 9:14 AM, Bob Stone wrote:\n${q(OLD)}`, reply: "Sending it now.", quoted: "Thursday" },
  { id: "de-gmail", text: `Hallo Bob,\n\nich schicke dir den Plan morgen früh.\n\nViele Grüße\nAnna\n\nAm Mo., 8. Jan. 2024 um 09:14 Uhr schrieb Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Hallo Bob,\n\nich schicke dir den Plan morgen früh.\n\nViele Grüße\nAnna", quoted: "floor plan" },
  { id: "de-thunderbird", text: `Der Plan liegt im Anhang.\n\nAm 08.01.24 um 09:14 schrieb Bob Stone:\n${q(OLD)}`, reply: "Der Plan liegt im Anhang.", quoted: "floor plan" },
  { id: "de-schrieb-am", text: `Erledigt.\n\nBob Stone schrieb am 08.01.2024 09:14:\n${q(OLD)}`, reply: "Erledigt.", quoted: "floor plan" },
  { id: "da-gmail", text: `Hej Bob,\n\nJeg sender tegningen i aften.\n\nMvh\nMette\n\nDen man. 8. jan. 2024 kl. 09.14 skrev Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Hej Bob,\n\nJeg sender tegningen i aften.\n\nMvh\nMette", quoted: "floor plan" },
  { id: "no-gmail", text: `Hei,\n\nTegningen kommer i morgen.\n\nman. 8. jan. 2024 kl. 09:14 skrev Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Hei,\n\nTegningen kommer i morgen.", quoted: "floor plan" },
  { id: "sv-gmail", text: `Hej!\n\nRitningen är på väg.\n\nDen mån 8 jan. 2024 kl 09:14 skrev Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Hej!\n\nRitningen är på väg.", quoted: "floor plan" },
  { id: "sv-pa", text: `Tack, jag fixar det.\n\nPå mån 8 jan. 2024 kl. 09:14 skrev Bob Stone:\n${q(OLD)}`, reply: "Tack, jag fixar det.", quoted: "floor plan" },
  { id: "pl-gmail", text: `Dzień dobry,\n\nplan wyślę jutro rano.\n\nPozdrawiam\nKasia\n\npon., 8 sty 2024 o 09:14 Bob Stone <bob@example.com> napisał(a):\n\n${q(OLD)}`, reply: "Dzień dobry,\n\nplan wyślę jutro rano.\n\nPozdrawiam\nKasia", quoted: "floor plan" },
  { id: "pl-thunderbird", text: `Przesyłam w załączniku.\n\nW dniu 8.01.2024 o 09:14, Bob Stone pisze:\n${q(OLD)}`, reply: "Przesyłam w załączniku.", quoted: "floor plan" },
  { id: "ru-gmail", text: `Добрый день!\n\nПлан пришлю сегодня вечером.\n\nпн, 8 янв. 2024 г. в 09:14, Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Добрый день!\n\nПлан пришлю сегодня вечером.", quoted: "floor plan" },
  { id: "ru-napisal", text: `Хорошо, сделаю.\n\n08.01.2024 9:14, Bob Stone написал(а):\n${q(OLD)}`, reply: "Хорошо, сделаю.", quoted: "floor plan" },
  { id: "fi-gmail", text: `Moi,\n\nlähetän kuvan huomenna.\n\nma 8. tammik. 2024 klo 9.14 Bob Stone (bob@example.com) kirjoitti:\n\n${q(OLD)}`, reply: "Moi,\n\nlähetän kuvan huomenna.", quoted: "floor plan" },
  { id: "fr-gmail", text: `Bonjour Bob,\n\nJe vous envoie le plan ce soir.\n\nCordialement,\nClaire\n\nLe lun. 8 janv. 2024 à 09:14, Bob Stone <bob@example.com> a écrit :\n\n${q(OLD)}`, reply: "Bonjour Bob,\n\nJe vous envoie le plan ce soir.\n\nCordialement,\nClaire", quoted: "floor plan" },
  { id: "es-gmail", text: `Hola Bob:\n\nTe lo mando esta tarde.\n\nEl lun, 8 ene 2024 a las 9:14, Bob Stone (<bob@example.com>) escribió:\n\n${q(OLD)}`, reply: "Hola Bob:\n\nTe lo mando esta tarde.", quoted: "floor plan" },
  { id: "nl-gmail", text: `Hoi Bob,\n\nIk stuur het vanavond.\n\nOp ma 8 jan. 2024 om 09:14 schreef Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Hoi Bob,\n\nIk stuur het vanavond.", quoted: "floor plan" },
  { id: "pt-gmail", text: `Olá Bob,\n\nEnvio a planta amanhã.\n\nEm seg., 8 de jan. de 2024 às 09:14, Bob Stone <bob@example.com> escreveu:\n\n${q(OLD)}`, reply: "Olá Bob,\n\nEnvio a planta amanhã.", quoted: "floor plan" },
  { id: "it-gmail", text: `Ciao Bob,\n\nte la mando stasera.\n\nIl giorno lun 8 gen 2024 alle ore 09:14 Bob Stone <bob@example.com> ha scritto:\n\n${q(OLD)}`, reply: "Ciao Bob,\n\nte la mando stasera.", quoted: "floor plan" },
  { id: "ja-gmail", text: `ボブさん\n\n明日の朝に図面を送ります。\n\n2024年1月8日(月) 9:14 Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "ボブさん\n\n明日の朝に図面を送ります。", quoted: "floor plan" },
  { id: "zh-gmail", text: `好的，今晚发给你。\n\nBob Stone <bob@example.com> 于2024年1月8日周一 09:14写道：\n\n${q(OLD)}`, reply: "好的，今晚发给你。", quoted: "floor plan" },
  { id: "ko-gmail", text: `네, 내일 보내드릴게요.\n\n2024년 1월 8일 (월) 오전 9:14, Bob Stone <bob@example.com>님이 작성:\n\n${q(OLD)}`, reply: "네, 내일 보내드릴게요.", quoted: "floor plan" },
  { id: "cs-napsal", text: `Pošlu to zítra.\n\npo 8. 1. 2024 v 9:14 odesílatel Bob Stone <bob@example.com> napsal:\n\n${q(OLD)}`, reply: "Pošlu to zítra.", quoted: "floor plan" },
  { id: "tr-yazdi", text: `Yarın gönderiyorum.\n\nBob Stone <bob@example.com>, 8 Oca 2024 Pzt, 09:14 tarihinde şunu yazdı:\n\n${q(OLD)}`, reply: "Yarın gönderiyorum.", quoted: "floor plan" },
  { id: "en-writes", text: `Agreed.\n\nBob Stone writes:\n${q(OLD)}`, reply: "Agreed.", quoted: "floor plan" },

  // --- Outlook header blocks (unquoted history) and their translations
  { id: "outlook-en", text: `Approved.\n\nRegards,\nCarol\n\n________________________________\nFrom: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14 AM\nTo: Carol Diaz <carol@example.com>\nSubject: Floor plan\n\n${OLD}`, reply: "Approved.\n\nRegards,\nCarol", quoted: "Floor plan" },
  { id: "outlook-en-bold", text: `Approved.\n\n*From:* Bob Stone <bob@example.com>\n*Sent:* Monday, January 8, 2024 9:14 AM\n*To:* Carol Diaz <carol@example.com>\n*Subject:* Floor plan\n\n${OLD}`, reply: "Approved.", quoted: "floor plan" },
  { id: "outlook-mac", text: `See attached.\n\nFrom: Bob Stone <bob@example.com>\nDate: Monday, 8 January 2024 at 09:14\nTo: Carol Diaz <carol@example.com>\nSubject: Floor plan\n\n${OLD}`, reply: "See attached.", quoted: "floor plan" },
  { id: "outlook-da", text: `Hej Bob\n\nTegningen er vedhæftet.\n\nVenlig hilsen\nMette\n\nFra: Bob Stone <bob@example.com>\nSendt: 8. januar 2024 09:14\nTil: Mette Holm <mette@example.dk>\nEmne: Floor plan\n\n${OLD}`, reply: "Hej Bob\n\nTegningen er vedhæftet.\n\nVenlig hilsen\nMette", quoted: "floor plan" },
  { id: "outlook-no", text: `Vedlagt.\n\nFra: Bob Stone <bob@example.com>\nSendt: mandag 8. januar 2024 09:14\nTil: Ola Nordmann <ola@example.no>\nEmne: Floor plan\n\n${OLD}`, reply: "Vedlagt.", quoted: "floor plan" },
  { id: "outlook-de", text: `Anbei der Plan.\n\nGruß\nJens\n\nVon: Bob Stone <bob@example.com>\nGesendet: Montag, 8. Januar 2024 09:14\nAn: Jens Weber <jens@example.de>\nBetreff: Floor plan\n\n${OLD}`, reply: "Anbei der Plan.\n\nGruß\nJens", quoted: "floor plan" },
  { id: "outlook-fr", text: `Voici le plan.\n\nDe : Bob Stone <bob@example.com>\nEnvoyé : lundi 8 janvier 2024 09:14\nÀ : Claire Martin <claire@example.fr>\nObjet : Floor plan\n\n${OLD}`, reply: "Voici le plan.", quoted: "floor plan" },
  { id: "outlook-es", text: `Adjunto el plano.\n\nDe: Bob Stone <bob@example.com>\nEnviado: lunes, 8 de enero de 2024 9:14\nPara: Ana Ruiz <ana@example.es>\nAsunto: Floor plan\n\n${OLD}`, reply: "Adjunto el plano.", quoted: "floor plan" },
  { id: "outlook-pt", text: `Segue a planta.\n\nDe: Bob Stone <bob@example.com>\nEnviada em: segunda-feira, 8 de janeiro de 2024 09:14\nPara: João Silva <joao@example.pt>\nAssunto: Floor plan\n\n${OLD}`, reply: "Segue a planta.", quoted: "floor plan" },
  { id: "outlook-it", text: `Ecco la planimetria.\n\nDa: Bob Stone <bob@example.com>\nInviato: lunedì 8 gennaio 2024 09:14\nA: Marco Rossi <marco@example.it>\nOggetto: Floor plan\n\n${OLD}`, reply: "Ecco la planimetria.", quoted: "floor plan" },
  { id: "outlook-nl", text: `Zie bijlage.\n\nVan: Bob Stone <bob@example.com>\nVerzonden: maandag 8 januari 2024 09:14\nAan: Piet de Vries <piet@example.nl>\nOnderwerp: Floor plan\n\n${OLD}`, reply: "Zie bijlage.", quoted: "floor plan" },
  { id: "outlook-sv", text: `Här är ritningen.\n\nFrån: Bob Stone <bob@example.com>\nSkickat: den 8 januari 2024 09:14\nTill: Sara Lind <sara@example.se>\nÄmne: Floor plan\n\n${OLD}`, reply: "Här är ritningen.", quoted: "floor plan" },
  { id: "outlook-pl", text: `W załączniku.\n\nOd: Bob Stone <bob@example.com>\nWysłano: poniedziałek, 8 stycznia 2024 09:14\nDo: Kasia Nowak <kasia@example.pl>\nTemat: Floor plan\n\n${OLD}`, reply: "W załączniku.", quoted: "floor plan" },
  { id: "outlook-ru", text: `Во вложении.\n\nОт: Bob Stone <bob@example.com>\nОтправлено: 8 января 2024 г. 9:14\nКому: Иван Петров <ivan@example.ru>\nТема: Floor plan\n\n${OLD}`, reply: "Во вложении.", quoted: "floor plan" },
  { id: "outlook-fi", text: `Liitteenä.\n\nLähettäjä: Bob Stone <bob@example.com>\nLähetetty: maanantai 8. tammikuuta 2024 9.14\nVastaanottaja: Matti Virtanen <matti@example.fi>\nAihe: Floor plan\n\n${OLD}`, reply: "Liitteenä.", quoted: "floor plan" },
  { id: "outlook-ja", text: `添付します。\n\n差出人: Bob Stone <bob@example.com>\n送信日時: 2024年1月8日 9:14\n宛先: 田中太郎 <taro@example.jp>\n件名: Floor plan\n\n${OLD}`, reply: "添付します。", quoted: "floor plan" },
  { id: "outlook-zh", text: `附件是平面图。\n\n发件人: Bob Stone <bob@example.com>\n发送时间: 2024年1月8日 9:14\n收件人: 李雷 <lilei@example.cn>\n主题: Floor plan\n\n${OLD}`, reply: "附件是平面图。", quoted: "floor plan" },
  { id: "outlook-one-line", text: `Done.\n\nFrom: Bob Stone <bob@example.com> Sent: Monday, January 8, 2024 9:14 AM To: Carol Subject: Floor plan\n\n${OLD}`, reply: "Done.", quoted: "floor plan" },

  // --- dividers
  { id: "original-message", text: `Looks fine to me.\n\n-----Original Message-----\nFrom: Bob Stone [mailto:bob@example.com]\nSent: Monday, January 08, 2024 9:14 AM\nTo: Carol\nSubject: Floor plan\n\n${OLD}`, reply: "Looks fine to me.", quoted: "floor plan" },
  { id: "original-message-oe", text: `Fine.\n\n----- Original Message -----\nFrom: "Bob Stone" <bob@example.com>\nTo: <carol@example.com>\nSent: Monday, January 08, 2024 9:14 AM\nSubject: Floor plan\n\n${OLD}`, reply: "Fine.", quoted: "floor plan" },
  { id: "reply-message", text: `收到，谢谢。\n\n-----Reply Message-----\nFrom: Bob Stone <bob@example.com>\nDate: 2024-01-08 09:14\nTo: Li Lei\nSubject: Floor plan\n\n${OLD}`, reply: "收到，谢谢。", quoted: "floor plan" },
  { id: "android-original", text: `Ok!\n\n-------- Original message --------\nFrom: Bob Stone <bob@example.com>\nDate: 08/01/2024 09:14 (GMT+01:00)\nTo: Carol <carol@example.com>\nSubject: Floor plan\n\n${OLD}`, reply: "Ok!", quoted: "floor plan" },
  { id: "de-urspruengliche", text: `Danke!\n\n-----Ursprüngliche Nachricht-----\nVon: Bob Stone <bob@example.com>\nGesendet: Montag, 8. Januar 2024 09:14\nAn: Jens\nBetreff: Floor plan\n\n${OLD}`, reply: "Danke!", quoted: "floor plan" },
  { id: "da-oprindelig", text: `Tak!\n\n-----Oprindelig meddelelse-----\nFra: Bob Stone <bob@example.com>\nSendt: 8. januar 2024 09:14\nTil: Mette\nEmne: Floor plan\n\n${OLD}`, reply: "Tak!", quoted: "floor plan" },
  { id: "zoho-divider", text: `Will check.\n\n---- On Mon, 08 Jan 2024 09:14:00 +0100 Bob Stone <bob@example.com> wrote ----\n\n${OLD}`, reply: "Will check.", quoted: "floor plan" },
  { id: "yahoo-unquoted", text: `Thanks Bob.\n\n    On Monday, January 8, 2024 at 09:14:00 AM GMT+1, Bob Stone <bob@example.com> wrote:\n\n${OLD}`, reply: "Thanks Bob.", quoted: "floor plan" },

  // --- date-only headers and a header sharing the answer's line
  { id: "date-only-iso", text: `Confirmed.\n\n2024-01-08 9:14 GMT+01:00 Bob Stone <bob@example.com>:\n\n${q(OLD)}`, reply: "Confirmed.", quoted: "floor plan" },
  { id: "date-only-slash", text: `Sure.\n\n2024/1/8 Bob Stone <bob@example.com>:\n${q(OLD)}`, reply: "Sure.", quoted: "floor plan" },
  { id: "date-only-no-address", text: `On it.\n\n08.01.2024 09:14, Bob Stone:\n${q(OLD)}`, reply: "On it.", quoted: "floor plan" },
  { id: "same-line-header", text: `Sure, see you Thursday. On Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n${q(OLD)}`, reply: "Sure, see you Thursday.", quoted: "floor plan" },
  { id: "same-line-dashes", text: `reply--- On Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n${q(OLD)}`, reply: "reply", quoted: "floor plan" },
  { id: "same-line-german", text: `Passt so. Am 08.01.2024 um 09:14 schrieb Bob Stone <bob@example.com>:\n${q(OLD)}`, reply: "Passt so.", quoted: "floor plan" },

  // --- bottom posting and interleaved answers
  { id: "bottom-thunderbird", text: `On 1/8/24 9:14 AM, Bob Stone wrote:\n${q(OLD)}\n\nHere it is, attached.\n\nCheers,\nAlice\n`, reply: "Here it is, attached.\n\nCheers,\nAlice", quoted: "floor plan" },
  { id: "bottom-with-signature", text: `Am 08.01.24 um 09:14 schrieb Bob Stone:\n${q(OLD)}\n\nIst im Anhang.\n\n-- \nAnna Schmidt\nPlanungsbüro Schmidt\nTel. 030 1234567\n`, reply: "Ist im Anhang.", quoted: "Planungsbüro" },
  { id: "bottom-no-header", text: `${q(OLD)}\n\nSent it an hour ago, check your spam folder.\n`, reply: "Sent it an hour ago, check your spam folder.", quoted: "floor plan" },
  { id: "interleaved", text: `Hi Bob,\n\nOn Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n> Could you send me the updated floor plan?\n\nYes, attached.\n\n> And can we meet Thursday?\n\nThursday at 10 works for me.\n\n> Thanks,\n> Bob\n\nAlice\n`, reply: "Hi Bob,\n\nYes, attached.\n\nThursday at 10 works for me.\n\nAlice", quoted: "meet Thursday" },
  { id: "interleaved-no-header", text: `> Is the plan final?\nNot yet, one room is missing.\n> When will it be?\nFriday.\n`, reply: "Not yet, one room is missing.\nFriday.", quoted: "plan final" },
  { id: "interleaved-nested", text: `See my answers.\n\nOn Tue, Jan 9, 2024 at 8:00 AM Carol <carol@example.com> wrote:\n> Two questions:\n> 1. budget?\n\n10k.\n\n> 2. timeline?\n\nMarch.\n\n>\n> On Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n>> old stuff\n`, reply: "See my answers.\n\n10k.\n\nMarch.", quoted: "old stuff" },

  // --- signatures
  { id: "sig-dashdash", text: "Moved to 4pm.\n\n-- \nAlice Example\nExample Inc.\n+1 555 0100\n", reply: "Moved to 4pm.", quoted: "Example Inc." },
  { id: "sig-iphone-da", text: `Det gør jeg.\n\nSendt fra min iPhone\n\n> Den 8. jan. 2024 kl. 09.14 skrev Bob Stone <bob@example.com>:\n>\n${q(OLD)}`, reply: "Det gør jeg.", quoted: "iPhone" },
  { id: "sig-iphone-sv", text: `Absolut.\n\nSkickat från min iPhone\n\n> 8 jan. 2024 kl. 09:14 skrev Bob Stone <bob@example.com>:\n${q(OLD)}`, reply: "Absolut.", quoted: "floor plan" },
  { id: "sig-iphone-de", text: `Mache ich.\n\nVon meinem iPhone gesendet\n\n> Am 08.01.2024 um 09:14 schrieb Bob Stone <bob@example.com>:\n${q(OLD)}`, reply: "Mache ich.", quoted: "floor plan" },
  { id: "sig-iphone-pl", text: `Jasne.\n\nWysłane z iPhone'a\n\n> Wiadomość napisana przez Bob Stone <bob@example.com> w dniu 08.01.2024, o godz. 09:14:\n${q(OLD)}`, reply: "Jasne.", quoted: "floor plan" },
  { id: "sig-iphone-ru", text: `Хорошо.\n\nОтправлено с iPhone\n\n> 8 янв. 2024 г., в 09:14, Bob Stone <bob@example.com> написал(а):\n${q(OLD)}`, reply: "Хорошо.", quoted: "floor plan" },
  { id: "sig-iphone-ja", text: `了解です。\n\niPhoneから送信\n\n> 2024/01/08 9:14、Bob Stone <bob@example.com>のメール:\n${q(OLD)}`, reply: "了解です。", quoted: "floor plan" },
  { id: "sig-iphone-fi", text: `Selvä.\n\nLähetetty iPhonesta\n\n> Bob Stone <bob@example.com> kirjoitti 8.1.2024 kello 9.14:\n${q(OLD)}`, reply: "Selvä.", quoted: "floor plan" },
  { id: "sig-android", text: `Will be there.\n\nSent from my Galaxy\n\n-------- Original message --------\nFrom: Bob Stone <bob@example.com>\nDate: 1/8/24 09:14 (GMT+01:00)\nTo: Carol\nSubject: Floor plan\n\n${OLD}`, reply: "Will be there.", quoted: "floor plan" },
  { id: "sig-outlook-mobile", text: `Ok, thanks.\n\nGet Outlook for iOS\n________________________________\nFrom: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14:00 AM\nTo: Carol <carol@example.com>\nSubject: Floor plan\n\n${OLD}`, reply: "Ok, thanks.", quoted: "floor plan" },

  // --- no quote at all, and text that only looks like a header
  { id: "plain", text: "Hi team,\n\nThe office is closed on Friday.\n\nThanks,\nDana\n", reply: "Hi team,\n\nThe office is closed on Friday.\n\nThanks,\nDana" },
  { id: "wrote-in-sentence", text: "On Monday I wrote: the plan is ready.\nNothing else changed.", reply: "On Monday I wrote: the plan is ready.\nNothing else changed." },
  { id: "from-in-text", text: "From: the facilities team, with thanks.\nWe moved the meeting to room 4.", reply: "From: the facilities team, with thanks.\nWe moved the meeting to room 4." },
  { id: "forwarded", text: "FYI, see below.\n\n---------- Forwarded message ---------\nFrom: Bob Stone <bob@example.com>\nDate: Mon, Jan 8, 2024\nSubject: Floor plan\n\nThe plan is attached.", reply: "FYI, see below.\n\n---------- Forwarded message ---------\nFrom: Bob Stone <bob@example.com>\nDate: Mon, Jan 8, 2024\nSubject: Floor plan\n\nThe plan is attached." },
  { id: "forward-no-marker", text: "From: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14 AM\nTo: Carol\nSubject: Floor plan\n\nThe plan is attached.", reply: "From: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14 AM\nTo: Carol\nSubject: Floor plan\n\nThe plan is attached." },

  // --- HTML replies
  { id: "html-gmail", html: `<div dir="ltr">Attached, with the new kitchen.<br clear="all"><div><br></div><span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature"><div dir="ltr">Alice Example<br>Example Architects</div></div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jan 8, 2024 at 9:14 AM Bob Stone &lt;<a href="mailto:bob@example.com">bob@example.com</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Could you send me the updated floor plan before Thursday?<div><br></div><div>Thanks,</div><div>Bob</div></div></blockquote></div>`, reply: "Attached, with the new kitchen.", quoted: "floor plan" },
  { id: "html-outlook", html: `<html><body><div style="font-family:Calibri">Approved, go ahead.</div><div style="font-family:Calibri">Carol</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri" style="font-size:11pt" color="#000000"><b>From:</b> Bob Stone &lt;bob@example.com&gt;<br><b>Sent:</b> Monday, January 8, 2024 9:14 AM<br><b>To:</b> Carol Diaz &lt;carol@example.com&gt;<br><b>Subject:</b> Floor plan</font><div>&nbsp;</div></div><div><p>Could you send me the updated floor plan before Thursday?</p></div></body></html>`, reply: "Approved, go ahead.\nCarol", quoted: "floor plan" },
  { id: "html-outlook-da", html: `<div>Det er i orden.</div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg"><b>Fra:</b> Bob Stone &lt;bob@example.com&gt;<br><b>Sendt:</b> 8. januar 2024 09:14<br><b>Til:</b> Mette<br><b>Emne:</b> Floor plan</div><div>Could you send me the updated floor plan before Thursday?</div>`, reply: "Det er i orden.", quoted: "floor plan" },
  { id: "html-hotmail-hr", html: `<html><body><div dir="ltr">Sounds great, thanks!<br><br><div><hr id="stopSpelling">Date: Mon, 8 Jan 2024 09:14:00 +0100<br>From: bob@example.com<br>To: carol@example.com<br>Subject: Floor plan<br><br>Could you send me the updated floor plan before Thursday?</div></div></body></html>`, reply: "Sounds great, thanks!", quoted: "floor plan" },
  { id: "html-hotmail-hr-de", html: `<div>Alles klar.</div><hr>Datum: Mon, 8 Jan 2024 09:14:00 +0100<br>Von: bob@example.com<br>An: jens@example.de<br>Betreff: Floor plan<br><br>Could you send me the updated floor plan before Thursday?`, reply: "Alles klar.", quoted: "floor plan" },
  { id: "html-apple", html: `<html><body><div>Works for me.</div><div><br></div><div><br><blockquote type="cite"><div>On 8 Jan 2024, at 09:14, Bob Stone &lt;bob@example.com&gt; wrote:</div><br><div><div>Could you send me the updated floor plan before Thursday?</div></div></blockquote></div></body></html>`, reply: "Works for me.", quoted: "floor plan" },
  { id: "html-thunderbird-bottom", html: `<html><body><div class="moz-cite-prefix">On 1/8/24 9:14 AM, Bob Stone wrote:<br></div><blockquote type="cite">Could you send me the updated floor plan before Thursday?<br></blockquote><p>Here it is.</p><div class="moz-signature">-- <br>Alice Example</div></body></html>`, reply: "Here it is.", quoted: "floor plan" },
  { id: "html-yahoo", html: `<div>Yes, Thursday.</div><div class="yahoo_quoted"><div>On Monday, January 8, 2024, 09:14:00 AM GMT+1, Bob Stone &lt;bob@example.com&gt; wrote:</div><div><div>Could you send me the updated floor plan before Thursday?</div></div></div>`, reply: "Yes, Thursday.", quoted: "floor plan" },
  { id: "html-gmail-fr", html: `<div dir="ltr">Parfait, merci.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Le lun. 8 janv. 2024 à 09:14, Bob Stone &lt;<a href="mailto:bob@example.com">bob@example.com</a>&gt; a écrit&nbsp;:<br></div><blockquote class="gmail_quote">Could you send me the updated floor plan before Thursday?</blockquote></div>`, reply: "Parfait, merci.", quoted: "floor plan" },
  { id: "html-interleaved", html: `<div>Answers inline.</div><div class="gmail_quote"><div class="gmail_attr">On Mon, Jan 8, 2024 at 9:14 AM Bob Stone &lt;bob@example.com&gt; wrote:</div><blockquote>Is the plan final?</blockquote><div>Yes.</div><blockquote>Can we meet Thursday?</blockquote><div>Thursday at 10.</div></div>`, reply: "Answers inline.\n\nYes.\n\nThursday at 10.", quoted: "plan final" },

  // --- shapes added after the extractor was written, to keep the figures honest
  { id: "de-gmail-wrapped", text: `Mache ich heute.\n\nAm Mo., 8. Jan. 2024 um 09:14 Uhr schrieb Robert Stone aus der Abteilung Facility Management <\nrobert.stone@example.com>:\n\n${q(OLD)}`, reply: "Mache ich heute.", quoted: "floor plan" },
  { id: "apple-unquoted", text: `Ok\n\nSent from my iPhone\n\nOn Jan 8, 2024, at 09:14, Bob Stone <bob@example.com> wrote:\n\n${OLD}`, reply: "Ok", quoted: "floor plan" },
  { id: "html-outlook-fr", html: `<div>Bien reçu.</div><hr><div id="divRplyFwdMsg"><b>De :</b> Bob Stone &lt;bob@example.com&gt;<br><b>Envoyé :</b> lundi 8 janvier 2024 09:14<br><b>À :</b> Claire<br><b>Objet :</b> Floor plan</div><div>Could you send me the updated floor plan before Thursday?</div>`, reply: "Bien reçu.", quoted: "floor plan" },
  { id: "agenda-colon", text: "Agenda for 10:30:\n- budget\n- floor plan\n\nSee you,\nDana", reply: "Agenda for 10:30:\n- budget\n- floor plan\n\nSee you,\nDana" },
  { id: "bare-dashes-then-quote", text: `Thanks!\n--\nAlice\n\nOn Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n${q(OLD)}`, reply: "Thanks!", quoted: "Alice" },
  { id: "fr-thunderbird-bottom", text: `Le 08/01/2024 à 09:14, Bob Stone a écrit :\n${q(OLD)}\n\nC'est fait, regarde la pièce jointe.\n`, reply: "C'est fait, regarde la pièce jointe.", quoted: "floor plan" },
  { id: "es-outlook-ios", text: `Claro que sí.\n\nEl lunes, 8 de enero de 2024, Bob Stone <bob@example.com> escribió:\n\n${OLD}`, reply: "Claro que sí.", quoted: "floor plan" },
  { id: "quoted-header-only-answer-below", text: `> On Mon, Jan 8, 2024 at 9:14 AM Bob Stone <bob@example.com> wrote:\n> Any news?\n\nNot yet.`, reply: "Not yet.", quoted: "Any news" },
  { id: "nl-outlook-hr-html", html: `<p>Prima, dank je.</p><hr><p><b>Van:</b> Bob Stone &lt;bob@example.com&gt;<br><b>Verzonden:</b> maandag 8 januari 2024 09:14<br><b>Aan:</b> Piet<br><b>Onderwerp:</b> Floor plan</p><p>Could you send me the updated floor plan before Thursday?</p>`, reply: "Prima, dank je.", quoted: "floor plan" },
  { id: "html-blockquote-layout", html: `<html><body><blockquote style="margin:0 0 0 40px"><p>Dear neighbours,</p><p>the street party is on Saturday from 3pm.</p></blockquote></body></html>`, reply: "Dear neighbours,\n\nthe street party is on Saturday from 3pm." },
  { id: "de-header-unquoted-history", text: `Ja, passt.\n\nAm 08.01.2024 um 09:14 schrieb Bob Stone <bob@example.com>:\n\n${OLD}`, reply: "Ja, passt.", quoted: "floor plan" },
  { id: "es-outlook-mac", text: `Perfecto.\n\nDe: Bob Stone <bob@example.com>\nFecha: lunes, 8 de enero de 2024, 9:14\nPara: Ana Ruiz <ana@example.es>\nAsunto: Floor plan\n\n${OLD}`, reply: "Perfecto.", quoted: "floor plan" },
  { id: "apple-forward-with-sig", text: `Can you look at this?\n\nSent from my iPhone\n\nBegin forwarded message:\n\nFrom: Bob Stone <bob@example.com>\nDate: 8 January 2024 at 09:14:00 CET\nSubject: Floor plan\n\n${OLD}`, reply: `Can you look at this?\n\nBegin forwarded message:\n\nFrom: Bob Stone <bob@example.com>\nDate: 8 January 2024 at 09:14:00 CET\nSubject: Floor plan\n\n${OLD}` },
  { id: "thread-two-outlook-blocks", text: `Final version attached.\n\nFrom: Carol Diaz <carol@example.com>\nSent: Tuesday, January 9, 2024 8:00 AM\nTo: Alice\nSubject: RE: Floor plan\n\nAlmost there.\n\nFrom: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14 AM\nTo: Carol\nSubject: Floor plan\n\n${OLD}`, reply: "Final version attached.", quoted: "Almost there" },
  { id: "bottom-pl-with-sig", text: `W dniu 8.01.2024 o 09:14, Bob Stone pisze:\n${q(OLD)}\n\nW załączniku poprawiony plan.\n\n-- \nKasia Nowak\n`, reply: "W załączniku poprawiony plan.", quoted: "Kasia" },
  { id: "two-line-outlook", text: `Yes.\n\nFrom: Bob Stone <bob@example.com>\nSent: Monday, January 8, 2024 9:14 AM\n\n${OLD}`, reply: "Yes.", quoted: "floor plan" },
];
