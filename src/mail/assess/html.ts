/**
 * One linear pass over (capped) HTML that separates what a person sees from what only a
 * program reading the markup sees. Not a full HTML parser on purpose: it needs no
 * dependency, never backtracks, and mis-nesting only shifts text between "visible" and
 * "hidden", never loses it.
 */
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
  /** Comments, alt and title attributes: not body text, but text a model converting HTML may read. */
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

const WHITE = 0xffffff;
const BLACK = 0x000000;
const UNKNOWN = -1; // a background image or a colour we cannot read: never "same colour"

interface Frame {
  name: string;
  hidden: boolean;
  color: number;
  bg: number;
  anchor: number; // index into anchors, -1 outside a link
}

export function scanHtml(input: string): HtmlScan {
  const html = input.length > MAX_TEXT ? input.slice(0, MAX_TEXT) : input;
  const n = html.length;
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
        i = skipRawText(html, i, name);
        continue;
      }
      if (VOID.has(name) || tag.selfClosing) continue;
      const siblings = SELF_CLOSING_SIBLINGS[name];
      if (siblings && siblings.includes(top().name)) stack.pop();
      if (stack.length > MAX_DEPTH) {
        overflow++;
        continue;
      }
      const frame = childFrame(top(), name, tag.attrs);
      if ((name === "a" || name === "area") && tag.attrs.has("href") && out.anchors.length < MAX_LINKS) {
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

function childFrame(parent: Frame, name: string, attrs: Map<string, string>): Frame {
  const style = parseStyle(attrs.get("style") ?? "");
  let color = parent.color;
  let bg = parent.bg;
  const fontColor = name === "font" ? attrs.get("color") : undefined;
  const c = style.get("color") ?? fontColor;
  if (c !== undefined) color = parseColor(c) ?? color;
  const bgAttr = attrs.get("bgcolor");
  if (bgAttr !== undefined) bg = parseColor(bgAttr) ?? bg;
  if (attrs.has("background")) bg = UNKNOWN;
  const bgc = style.get("background-color");
  if (bgc !== undefined) bg = bgc === "transparent" ? bg : parseColor(bgc) ?? UNKNOWN;
  const bgShort = style.get("background");
  if (bgShort !== undefined) bg = backgroundColor(bgShort, bg);
  if (style.has("background-image")) bg = UNKNOWN;
  const anchor = parent.anchor;
  return { name, hidden: parent.hidden || attrs.has("hidden") || hiddenByStyle(style), color, bg, anchor };
}

function hiddenByStyle(style: Map<string, string>): boolean {
  if (style.size === 0) return false;
  const display = style.get("display");
  if (display === "none") return true;
  const visibility = style.get("visibility");
  if (visibility === "hidden" || visibility === "collapse") return true;
  if (style.get("mso-hide") === "all") return true;
  const opacity = style.get("opacity");
  if (opacity !== undefined && parseFloat(opacity) <= 0.05) return true;
  const fontSize = style.get("font-size");
  if (fontSize !== undefined && tinyLength(fontSize)) return true;
  const clipped = style.get("overflow") === "hidden";
  for (const dim of ["max-height", "height", "max-width", "width"]) {
    const v = style.get(dim);
    if (clipped && v !== undefined && parseFloat(v) === 0) return true;
  }
  // Pushed off-screen: a classic for text meant for machines only.
  const position = style.get("position");
  if (position === "absolute" || position === "fixed") {
    for (const side of ["left", "top", "right"]) {
      const v = style.get(side);
      if (v !== undefined && parseFloat(v) <= -500) return true;
    }
  }
  const indent = style.get("text-indent");
  if (indent !== undefined && parseFloat(indent) <= -500) return true;
  return false;
}

function tinyLength(v: string): boolean {
  const num = parseFloat(v);
  if (Number.isNaN(num)) return false;
  if (num <= 0) return true;
  if (v.endsWith("px") || v.endsWith("pt")) return num <= 1;
  if (v.endsWith("em") || v.endsWith("rem")) return num <= 0.1;
  if (v.endsWith("%")) return num <= 10;
  return false;
}

function parseStyle(style: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!style) return out;
  for (const decl of style.slice(0, 2048).split(";")) {
    const colon = decl.indexOf(":");
    if (colon <= 0) continue;
    const prop = decl.slice(0, colon).trim().toLowerCase();
    const value = decl.slice(colon + 1).replace("!important", "").trim().toLowerCase();
    if (prop && value) out.set(prop, value);
  }
  return out;
}

const NAMED_COLORS: Record<string, number> = {
  white: 0xffffff, black: 0x000000, snow: 0xfffafa, ivory: 0xfffff0, whitesmoke: 0xf5f5f5, ghostwhite: 0xf8f8ff,
  silver: 0xc0c0c0, gray: 0x808080, grey: 0x808080, red: 0xff0000, green: 0x008000, blue: 0x0000ff, navy: 0x000080,
  yellow: 0xffff00, orange: 0xffa500, purple: 0x800080,
};

/** 0xRRGGBB, or null for what is not a colour we understand (or is fully transparent). */
export function parseColor(raw: string): number | null {
  const v = raw.trim().toLowerCase();
  if (v.startsWith("#")) {
    const hex = v.slice(1);
    if (!/^[0-9a-f]+$/.test(hex)) return null;
    if (hex.length === 3 || hex.length === 4) {
      if (hex.length === 4 && hex[3] === "0") return null;
      return parseInt(hex[0]! + hex[0] + hex[1] + hex[1] + hex[2] + hex[2], 16);
    }
    if (hex.length === 6 || hex.length === 8) {
      if (hex.length === 8 && hex.slice(6) === "00") return null;
      return parseInt(hex.slice(0, 6), 16);
    }
    return null;
  }
  const fn = /^rgba?\(([^)]{1,64})\)$/.exec(v);
  if (fn) {
    const parts = fn[1]!.split(/[\s,/]+/).filter(Boolean);
    if (parts.length < 3) return null;
    if (parts[3] !== undefined && parseFloat(parts[3]) === 0) return null;
    const ch = parts.slice(0, 3).map((p) => Math.max(0, Math.min(255, p.endsWith("%") ? Math.round(parseFloat(p) * 2.55) : parseFloat(p))));
    if (ch.some((x) => Number.isNaN(x))) return null;
    return (ch[0]! << 16) | (ch[1]! << 8) | ch[2]!;
  }
  return NAMED_COLORS[v] ?? null;
}

function backgroundColor(shorthand: string, inherited: number): number {
  if (shorthand.includes("url(")) return UNKNOWN;
  for (const token of shorthand.split(/\s+/)) {
    const c = parseColor(token);
    if (c !== null) return c;
  }
  return shorthand === "none" || shorthand === "transparent" ? inherited : UNKNOWN;
}

/** Near-equal counts: #fefefe on white is as unreadable as #ffffff on white. */
function sameColor(fg: number, bg: number): boolean {
  if (fg < 0 || bg < 0) return false;
  const d = Math.abs((fg >> 16) - (bg >> 16)) + Math.abs(((fg >> 8) & 255) - ((bg >> 8) & 255)) + Math.abs((fg & 255) - (bg & 255));
  return d <= 24;
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
