/** Attachments that run code when opened, judged by name, declared type and first bytes. */
import type { ParsedAttachment } from "../../types.ts";
import type { AssessContext } from "../model.ts";
import { zipEntryNames } from "./zip.ts";

const EXECUTABLE_EXT = new Set([
  "exe", "scr", "js", "jse", "vbs", "vbe", "wsf", "wsh", "bat", "cmd", "ps1", "psm1", "msi", "msp", "jar", "com", "pif", "hta",
  "lnk", "iso", "img", "vhd", "vhdx", "cpl", "reg", "chm", "scf", "appx", "appxbundle", "msix", "msixbundle", "apk", "dmg", "pkg",
  "application", "gadget", "inf", "sct", "url", "xll", "sh",
]);
const MACRO_EXT = new Set(["docm", "dotm", "xlsm", "xltm", "xlam", "pptm", "potm", "ppam", "ppsm", "sldm", "xlsb"]);
const EXECUTABLE_TYPES = new Set([
  "application/x-msdownload", "application/x-msdos-program", "application/x-dosexec", "application/x-executable",
  "application/vnd.microsoft.portable-executable", "application/x-ms-installer", "application/x-msi",
  "application/java-archive", "application/x-java-archive", "application/x-sh", "application/x-bat", "application/x-msdos-batch",
  "application/hta", "application/x-ms-shortcut", "application/x-iso9660-image", "application/x-apple-diskimage",
  "application/javascript", "application/x-javascript", "text/javascript", "application/ecmascript", "text/vbscript",
  "application/x-vbscript", "application/x-powershell", "application/vnd.ms-htmlhelp", "application/vnd.android.package-archive",
]);
const MACRO_TYPES = new Set([
  "application/vnd.ms-word.document.macroenabled.12", "application/vnd.ms-excel.sheet.macroenabled.12",
  "application/vnd.ms-powerpoint.presentation.macroenabled.12", "application/vnd.ms-excel.addin.macroenabled.12",
  "application/vnd.ms-excel.sheet.binary.macroenabled.12",
]);

/**
 * The extension Windows acts on: the last one, after dropping the trailing dots and spaces
 * it ignores ("invoice.pdf.exe. " runs as .exe). Right-to-left overrides are removed first,
 * since they exist only to make "xcod.exe" read as "exe.docx".
 */
export function effectiveExtension(filename: string): string {
  const name = filename.replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f]/g, "").replace(/[.\s]+$/, "");
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).trim().toLowerCase();
}

const hasBidiControl = (s: string) => /[\u202a-\u202e\u2066-\u2069]/.test(s);

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
}

/** PE ("MZ"), ELF and Mach-O binaries, whatever the name says. */
function executableBytes(bytes: Uint8Array): boolean {
  return (
    startsWith(bytes, [0x4d, 0x5a]) ||
    startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46]) ||
    startsWith(bytes, [0xcf, 0xfa, 0xed, 0xfe]) ||
    startsWith(bytes, [0xfe, 0xed, 0xfa, 0xcf])
  );
}

const isZip = (a: ParsedAttachment) => startsWith(a.content, [0x50, 0x4b, 0x03, 0x04]) || startsWith(a.content, [0x50, 0x4b, 0x05, 0x06]);

export function isExecutableAttachment(a: ParsedAttachment): boolean {
  const name = a.filename ?? "";
  if (EXECUTABLE_EXT.has(effectiveExtension(name)) || hasBidiControl(name)) return true;
  if (EXECUTABLE_TYPES.has(a.contentType) || executableBytes(a.content)) return true;
  // One level into zip archives: the usual wrapper around a dropper. Office files are zips
  // too, but their entries never carry these extensions.
  return isZip(a) && zipEntryNames(a.content).some((entry) => EXECUTABLE_EXT.has(effectiveExtension(entry)) || hasBidiControl(entry));
}

export const executableAttachment = (ctx: AssessContext): boolean => ctx.attachments.some(isExecutableAttachment);

/** Office documents that carry macros (by extension or declared type). */
export const macroAttachment = (ctx: AssessContext): boolean =>
  ctx.attachments.some((a) => MACRO_EXT.has(effectiveExtension(a.filename ?? "")) || MACRO_TYPES.has(a.contentType));
