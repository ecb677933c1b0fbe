/**
 * The little CSS that decides whether text is visible: inline styles, the legacy colour
 * attributes mail still uses, and top-level `.class` / `#id` rules of <style> blocks (the
 * easy way around an inline-style check). No selector engine: compound selectors, and rules
 * inside @media (responsive layouts hide desktop parts on phones), are ignored.
 */

export const WHITE = 0xffffff;
export const BLACK = 0x000000;
const UNKNOWN = -1; // a background image or a colour we cannot read: never "same colour"

export interface Presentation {
  hidden: boolean;
  /** 0xRRGGBB, or -1 when unknown. */
  color: number;
  bg: number;
}

export interface HiddenSelectors {
  classes: Set<string>;
  ids: Set<string>;
}

const MAX_SHEET = 64 * 1024;
const MAX_SELECTORS = 1000;

/** Classes and ids that top-level rules of the <style> blocks hide. Linear in the input. */
export function hiddenSelectors(html: string): HiddenSelectors {
  const out: HiddenSelectors = { classes: new Set(), ids: new Set() };
  const open = /<style\b[^>]{0,1024}>/gi;
  const close = /<\/style/gi;
  let sheet = "";
  for (let m = open.exec(html); m && sheet.length < MAX_SHEET; m = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const end = close.exec(html);
    if (!end) break; // an unclosed <style> hides nothing, and searching again would be quadratic
    sheet += `${html.slice(open.lastIndex, end.index)}\n`;
    open.lastIndex = end.index;
  }
  const css = stripComments(sheet.slice(0, MAX_SHEET));
  let depth = 0;
  let start = 0; // where the current top-level rule's selector text starts
  let selectors = "";
  for (let i = 0; i < css.length; i++) {
    const c = css[i];
    if (c === "{") {
      if (depth === 0) selectors = css.slice(start, i);
      depth++;
      start = i + 1;
    } else if (c === "}") {
      depth = Math.max(0, depth - 1);
      if (depth === 0) {
        if (!selectors.trim().startsWith("@") && hiddenByStyle(parseStyle(css.slice(start, i)))) addSelectors(out, selectors);
        start = i + 1;
      } else start = i + 1;
    }
  }
  return out;
}

function stripComments(css: string): string {
  let out = "";
  let i = 0;
  while (i < css.length) {
    const open = css.indexOf("/*", i);
    if (open < 0) return out + css.slice(i);
    out += css.slice(i, open);
    const close = css.indexOf("*/", open + 2);
    if (close < 0) return out;
    i = close + 2;
  }
  return out;
}

function addSelectors(out: HiddenSelectors, selectors: string): void {
  for (const raw of selectors.split(",")) {
    if (out.classes.size + out.ids.size >= MAX_SELECTORS) return;
    const m = /^[a-z0-9]{0,16}([.#])([\w-]{1,64})$/i.exec(raw.trim());
    if (m) (m[1] === "." ? out.classes : out.ids).add(m[2]!.toLowerCase());
  }
}

function hiddenBySheet(sheet: HiddenSelectors | undefined, attrs: Map<string, string>): boolean {
  if (!sheet || (sheet.classes.size === 0 && sheet.ids.size === 0)) return false;
  const id = attrs.get("id");
  if (id && sheet.ids.has(id.trim().toLowerCase())) return true;
  const cls = attrs.get("class");
  return !!cls && cls.toLowerCase().split(/\s+/).slice(0, 32).some((c) => sheet.classes.has(c));
}

/** What an element inherits and sets: hidden or not, text colour, background colour. */
export function presentation(parent: Presentation, name: string, attrs: Map<string, string>, sheet?: HiddenSelectors): Presentation {
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
  return { hidden: parent.hidden || attrs.has("hidden") || hiddenByStyle(style) || hiddenBySheet(sheet, attrs), color, bg };
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
export function sameColor(fg: number, bg: number): boolean {
  if (fg < 0 || bg < 0) return false;
  const d = Math.abs((fg >> 16) - (bg >> 16)) + Math.abs(((fg >> 8) & 255) - ((bg >> 8) & 255)) + Math.abs((fg & 255) - (bg & 255));
  return d <= 24;
}
