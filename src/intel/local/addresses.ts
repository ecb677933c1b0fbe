/**
 * Postal addresses: a house number, a street name and a street type ("221B Baker Street",
 * "1600 Amphitheatre Pkwy"), with the unit, city, state and postcode that follow on the
 * same line or the next one or two lines.
 *
 * Only street lines are looked for; a city line is taken only right after one, so a lone
 * "Springfield, IL" in prose is not an address.
 */

const STREET_TYPE = String.raw`Street|St|Avenue|Ave|Av|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Parkway|Pkwy|Square|Sq|Terrace|Ter|Highway|Hwy|Circle|Cir|Trail|Trl|Crescent|Cres|Close|Row|Alley|Plaza|Plz|Broadway|Walk|Mews|Gardens|Grove|Hill|Park|Pike|Turnpike|Expressway|Freeway`;
// Number, up to five words of street name (capitalised or numbered, "5th"), then the type.
// Words are separated by spaces the word class cannot match, so there is one way to split.
const STREET = new RegExp(
  String.raw`(?<![\w-])\d{1,6}[A-Za-z]?(?:-\d{1,6})?[ \t]+(?:(?:[NSEW]|North|South|East|West)\.?[ \t]+)?(?:(?:\p{Lu}[\p{L}'’.\-]{0,25}|\d{1,3}(?:st|nd|rd|th))[ \t]+){1,5}(?:${STREET_TYPE})(?![\p{L}])\.?(?:[ \t]+(?:[NSEW]{1,2}|NE|NW|SE|SW)\b)?`,
  "gu",
);
/**
 * What may follow on the street's line: a unit, a state and ZIP or a postcode directly, or
 * after a comma also a city ("…, Mountain View, CA 94043"). Words need the comma, so "123 Main
 * St. See you there" stops at the street. Each repetition starts with a comma or with a
 * shape words cannot take, so the input splits one way only.
 */
const UNIT = String.raw`(?:Suite|Ste|Apt|Unit|Floor|Fl|Room|#)\.?[ \t]*[\w-]{1,8}`;
// US state + ZIP, a ZIP, Canadian "ON K1N 5W8", Australian "NSW 2095", a UK postcode.
const CODE = String.raw`[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?|\d{5}(?:-\d{4})?|(?:[A-Z]{2}[ \t]+)?[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|[A-Z]{2,3}[ \t]+\d{4}(?!\d)|[A-Z]{1,2}\d[A-Z\d]?[ \t]+\d[A-Z]{2}`;
// Place names: capitalised words, none glued to a digit ("London N1 1AA" is a place and a code).
const PLACE = String.raw`\p{Lu}[\p{L}'’.\-]{0,25}(?![\p{L}\d])(?:[ \t]+\p{Lu}[\p{L}'’.\-]{0,25}(?![\p{L}\d])){0,3}`;
const REST_OF_LINE = new RegExp(
  // The last branch is a four-digit postcode after a state written as a place ("Manly NSW 2095").
  String.raw`^(?:,[ \t]*(?:${UNIT}|${CODE}|${PLACE})|[ \t]+(?:${UNIT}|${CODE})|(?<=\b[A-Z]{2,3})[ \t]+\d{4}(?!\d))+`,
  "u",
);
/** A city line: "Springfield, IL 62704", "London SW1A 1AA", "10115 Berlin", "Suite 200". */
const CITY_LINE = new RegExp(
  [
    String.raw`^[\p{Lu}][\p{L}'’.\- ]{1,40},?[ \t]+[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?$`,
    String.raw`^[\p{Lu}][\p{L}'’.\- ]{1,40},?[ \t]+[A-Z]{1,2}\d[A-Z\d]?[ \t]+\d[A-Z]{2}$`,
    String.raw`^\d{4,5}[ \t]+[\p{Lu}][\p{L}'’.\- ]{1,40}$`,
    String.raw`^[\p{Lu}][\p{L}'’.\- ]{1,40},[ \t]+[\p{Lu}][\p{L}'’.\- ]{1,40}(?:,?[ \t]+[A-Z\d]{3,4}(?:[ \t]+[A-Z\d]{3})?)?$`,
    String.raw`^(?:Suite|Ste|Apt|Unit|Floor|Fl|Room)\.?[ \t]*[\w-]{1,8}$`,
  ].join("|"),
  "u",
);
const MAX_LINE = 300;

/** Postal addresses in the text, each once, as written (lines joined with ", "). */
export function findAddresses(text: string): { text: string }[] {
  const out = new Map<string, { text: string }>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > MAX_LINE || !/\d/.test(line)) continue;
    STREET.lastIndex = 0;
    for (let m = STREET.exec(line); m; m = STREET.exec(line)) {
      let address = m[0].trim();
      const tail = REST_OF_LINE.exec(line.slice(m.index + m[0].length));
      if (tail) address += tail[0].replace(/[ \t]+$/, "");
      // The street's own line ended: the next lines may carry the unit and the city.
      if (!tail || m.index + m[0].length + tail[0].length >= line.trimEnd().length) {
        for (let k = i + 1; k <= i + 2 && k < lines.length; k++) {
          const next = lines[k]!.trim();
          if (next.length > 80 || !CITY_LINE.test(next)) break;
          address += `, ${next}`;
        }
      }
      const clean = address.replace(/,\s*,/g, ",").replace(/[,\s]+$/, "");
      if (!out.has(clean)) out.set(clean, { text: clean });
    }
  }
  return [...out.values()];
}
