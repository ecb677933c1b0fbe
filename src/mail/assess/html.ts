/**
 * One linear pass over (capped) HTML that separates what a person sees from what only a
 * program reading the markup sees. Not a full HTML parser on purpose: it needs no
 * dependency, never backtracks, and mis-nesting only shifts text between "visible" and
 * "hidden", never loses it.
 */
import { BLACK, hiddenSelectors, presentation, sameColor, WHITE, type Presentation } from "./css.ts";
import { decodeEntities, MAX_LINKS } from "./text.ts";

export interface Anchor {
  href: string;
  /** Text shown for the link, capped. */
  text: string;
}

export interface HtmlScan {
  visibleText: string;
  /** Text styled out of sight (display:none, font-size:0, same colour as the background, …). */
  hiddenText: string;
  /** Comments, alt/title attributes, <title>, <script>, <style>…: not body text, but text a model handed the HTML reads. */
  sideText: string;
  anchors: Anchor[];
  forms: number;
}

const MAX_TEXT = 512 * 1024;
const MAX_SIDE = 64 * 1024;
const MAX_ANCHOR_TEXT = 256;
const MAX_ATTR_VALUE = 4096;
const MAX_ATTRS = 32;
const MAX_DEPTH = 256;
// How far up the stack a closing tag looks for its opener; bounds the cost of tag soup.
const CLOSE_SEARCH = 32;

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "basefont", "frame"]);
// Elements whose content is never shown as text.
const SKIP = new Set(["script", "style", "title", "template", "xmp", "noembed", "noframes", "iframe", "object"]);
const BLOCK = new Set(["p", "div", "br", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "section", "article", "header", "footer", "dd", "dt"]);
// An opening tag of these closes an open sibling of the same kind (the common implied ends).
const SELF_CLOSING_SIBLINGS: Record<string, string[]> = {
  p: ["p"], li: ["li"], option: ["option"], tr: ["tr", "td", "th"], td: ["td", "th"], th: ["td", "th"], dt: ["dt", "dd"], dd: ["dt", "dd"],
};

interface Frame extends Presentation {
  name: string;
  anchor: number; // index into anchors, -1 outside a link
}

export function scanHtml(input: string): HtmlScan {
  const html = input.length > MAX_TEXT ? input.slice(0, MAX_TEXT) : input;
  const n = html.length;
  const sheet = hiddenSelectors(html);
  const out: HtmlScan = { visibleText: "", hiddenText: "", sideText: "", anchors: [], forms: 0 };
  const visible: string[] = [];
  const hidden: string[] = [];
  const side: string[] = [];
  let visibleLen = 0;
  let hiddenLen = 0;
  let sideLen = 0;
  const root: Frame = { name: "#root", hidden: false, color: BLACK, bg: WHITE, anchor: -1 };
  const stack: Frame[] = [root];
  let overflow = 0; // opened beyond MAX_DEPTH and not pushed

  const top = () => stack[stack.length - 1]!;
  const addSide = (s: string) => {
    if (sideLen < MAX_SIDE && s) {
      side.push(s);
      sideLen += s.length + 1;
    }
  };
  const emit = (raw: string) => {
    const text = decodeEntities(raw);
    const f = top();
    if (f.hidden || sameColor(f.color, f.bg)) {
      if (hiddenLen < MAX_TEXT) (hidden.push(text), (hiddenLen += text.length));
    } else if (visibleLen < MAX_TEXT) (visible.push(text), (visibleLen += text.length));
    if (f.anchor >= 0) {
      const a = out.anchors[f.anchor]!;
      if (a.text.length < MAX_ANCHOR_TEXT) a.text = (a.text + text).slice(0, MAX_ANCHOR_TEXT);
    }
  };

  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      emit(html.slice(i));
      break;
    }
    if (lt > i) emit(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      addSide(html.slice(lt + 4, end < 0 ? n : end));
      i = end < 0 ? n : end + 3;
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      const end = html.indexOf(">", lt);
      i = end < 0 ? n : end + 1;
    } else if (next === 0x2f /* / */) {
      const tag = readName(html, lt + 2);
      const end = html.indexOf(">", tag.end);
      i = end < 0 ? n : end + 1;
      if (tag.name) {
        if (overflow > 0) overflow--;
        else closeTag(stack, tag.name);
        if (BLOCK.has(tag.name)) emit("\n");
      }
    } else if (isAsciiLetter(next)) {
      const tag = parseTag(html, lt + 1);
      i = tag.end;
      const name = tag.name;
      if (name === "form") out.forms++;
      const alt = tag.attrs.get("alt") ?? tag.attrs.get("title");
      if (alt) addSide(decodeEntities(alt));
      if (BLOCK.has(name)) emit("\n");
      if (SKIP.has(name)) {
        // Not shown to a person, but a model handed the markup reads it all the same.
        const end = skipRawText(html, i, name);
        addSide(html.slice(i, Math.min(end, i + MAX_SIDE)));
        i = end;
        continue;
      }
      // An image-map link has no content; its alt is what a reader sees.
      if (name === "area" && tag.attrs.has("href") && out.anchors.length < MAX_LINKS) {
        out.anchors.push({ href: decodeEntities(tag.attrs.get("href")!).trim(), text: decodeEntities(tag.attrs.get("alt") ?? "").slice(0, MAX_ANCHOR_TEXT) });
      }
      if (VOID.has(name) || tag.selfClosing) continue;
      const siblings = SELF_CLOSING_SIBLINGS[name];
      if (siblings && siblings.includes(top().name)) stack.pop();
      if (stack.length > MAX_DEPTH) {
        overflow++;
        continue;
      }
      const parent = top();
      const frame: Frame = { name, ...presentation(parent, name, tag.attrs, sheet), anchor: parent.anchor };
      if (name === "a" && tag.attrs.has("href") && out.anchors.length < MAX_LINKS) {
        out.anchors.push({ href: decodeEntities(tag.attrs.get("href")!).trim(), text: "" });
        frame.anchor = out.anchors.length - 1;
      }
      stack.push(frame);
    } else {
      emit("<");
      i = lt + 1;
    }
  }

  out.visibleText = visible.join("");
  out.hiddenText = hidden.join("");
  out.sideText = side.join("\n");
  return out;
}

function closeTag(stack: Frame[], name: string): void {
  const floor = Math.max(1, stack.length - CLOSE_SEARCH);
  for (let k = stack.length - 1; k >= floor; k--) {
    if (stack[k]!.name === name) {
      stack.length = k;
      return;
    }
  }
}

const isAsciiLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isNameChar = (c: number) => isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x3a;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;

function readName(html: string, from: number): { name: string; end: number } {
  let j = from;
  while (j < html.length && isNameChar(html.charCodeAt(j))) j++;
  return { name: html.slice(from, Math.min(j, from + 32)).toLowerCase(), end: j };
}

/** Parses `<name attr=value …>` from just after "<"; `end` is just after ">". */
function parseTag(html: string, from: number): { name: string; attrs: Map<string, string>; selfClosing: boolean; end: number } {
  const n = html.length;
  const { name, end: afterName } = readName(html, from);
  const attrs = new Map<string, string>();
  let i = afterName;
  let selfClosing = false;
  while (i < n) {
    const c = html.charCodeAt(i);
    if (c === 0x3e /* > */) {
      selfClosing = html.charCodeAt(i - 1) === 0x2f;
      return { name, attrs, selfClosing, end: i + 1 };
    }
    if (isSpace(c) || c === 0x2f) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n) {
      const d = html.charCodeAt(i);
      if (isSpace(d) || d === 0x3d || d === 0x3e || d === 0x2f) break;
      i++;
    }
    const attrName = html.slice(nameStart, Math.min(i, nameStart + 64)).toLowerCase();
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    let value = "";
    if (html.charCodeAt(i) === 0x3d /* = */) {
      i++;
      while (i < n && isSpace(html.charCodeAt(i))) i++;
      const q = html.charCodeAt(i);
      if (q === 0x22 || q === 0x27) {
        const close = html.indexOf(q === 0x22 ? '"' : "'", i + 1);
        const stop = close < 0 ? n : close;
        value = html.slice(i + 1, Math.min(stop, i + 1 + MAX_ATTR_VALUE));
        i = stop + 1;
      } else {
        const start = i;
        while (i < n && !isSpace(html.charCodeAt(i)) && html.charCodeAt(i) !== 0x3e) i++;
        value = html.slice(start, Math.min(i, start + MAX_ATTR_VALUE));
      }
    }
    if (attrName && attrs.size < MAX_ATTRS && !attrs.has(attrName)) attrs.set(attrName, value);
  }
  return { name, attrs, selfClosing, end: n };
}

/** Index just after `</name…>`, or the end of input. */
function skipRawText(html: string, from: number, name: string): number {
  const re = new RegExp(`</${name}[\\s>/]`, "gi");
  re.lastIndex = from;
  const m = re.exec(html);
  if (!m) return html.length;
  const end = html.indexOf(">", m.index);
  return end < 0 ? html.length : end + 1;
}
